"""`GlobTool`: files whose path matches a glob pattern, newest first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from openhands.sdk.tool import (
    Action,
    DeclaredResources,
    InvalidToolSpecError,
    Observation,
    ToolContext,
    ToolDefinition,
)
from openhands.tools.file_search import (
    MAX_RESULTS,
    SKIPPED_DIRS,
    check_working_dir,
    expand_braces,
    glob_regex,
    iter_files,
    listing,
    search_root,
)
from pydantic import Field

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

DESCRIPTION = f"""Find files by name pattern; read-only.
* `pattern`: a glob relative to `path`, e.g. "**/*.py", "src/**/test_*.ts",
  "**/*.{{json,toml}}" (braces list alternatives).
* `path`: the folder to search (absolute, or relative to the workspace); the workspace if
  omitted.
Returns matching files, newest first, at most {MAX_RESULTS}. Version-control folders and
installed dependencies ({", ".join(sorted(SKIPPED_DIRS))}) are skipped."""


class GlobAction(Action):
    """Arguments of `glob`."""

    pattern: str = Field(min_length=1, description='The glob pattern, e.g. "**/*.py".')
    path: str | None = Field(default=None, description="The folder to search; the workspace.")


class GlobObservation(Observation):
    """The files a glob matched."""

    files: list[str] = Field(default_factory=list)
    pattern: str = ""
    search_path: str = ""
    truncated: bool = False


class GlobExecutor:
    """Matches glob patterns under one workspace."""

    def __init__(self, working_dir: str) -> None:
        self.working_dir = working_dir

    def __call__(
        self, action: GlobAction, conversation: BaseConversation | None = None
    ) -> GlobObservation:
        """List the files `action.pattern` matches under `action.path`."""
        try:
            files, root = search_root(self.working_dir, action.path)
        except ValueError as exc:
            return GlobObservation.from_text(f"Error: {exc}", is_error=True, pattern=action.pattern)
        patterns = expand_braces(action.pattern)
        if any(p.startswith("/") or ".." in p.split("/") for p in patterns):
            return GlobObservation.from_text(
                "Error: the pattern must stay inside `path` (no leading / or ..).",
                is_error=True,
                pattern=action.pattern,
                search_path=str(root),
            )
        regexes = [glob_regex(pattern) for pattern in patterns]
        found = [
            item
            for item in iter_files(files, root)
            if any(regex.match(item.relative) for regex in regexes)
        ]
        text, shown, truncated = listing(found, what="files")
        return GlobObservation.from_text(
            text,
            files=shown,
            pattern=action.pattern,
            search_path=str(root),
            truncated=truncated,
        )


class GlobTool(ToolDefinition):
    """Finds files by name pattern."""

    description = DESCRIPTION
    action_type = GlobAction
    observation_type = GlobObservation

    def declared_resources(self, action: Action) -> DeclaredResources:
        """Read-only: a listing shares nothing with other calls, so it may run beside them."""
        return DeclaredResources(declared=True)

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ToolDefinition]:
        """Build the tool for one conversation; it takes no params.

        Raises ValueError when the conversation's working directory is not a folder.
        """
        if params:
            raise InvalidToolSpecError(f"glob takes no params, got {sorted(params)}")
        check_working_dir(context.working_dir)
        return [cls(executor=GlobExecutor(context.working_dir))]
