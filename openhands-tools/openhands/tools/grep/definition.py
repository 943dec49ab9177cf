"""`GrepTool`: files whose content matches a regular expression, newest first."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

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
    FoundFile,
    check_working_dir,
    expand_braces,
    iter_files,
    listing,
    search_root,
)
from pydantic import Field

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

MAX_FILE_BYTES: Final[int] = 10 * 1024 * 1024
"""Files larger than this are not searched."""

DESCRIPTION = f"""Find files whose content matches a regular expression; read-only.
* `pattern`: a Python regular expression, case-insensitive, e.g. "def \\\\w+_test",
  "TODO|FIXME".
* `path`: the folder to search (absolute, or relative to the workspace); the workspace if
  omitted.
* `include`: only files whose name matches this glob, e.g. "*.py", "*.{{ts,tsx}}".
Returns the matching files, newest first, at most {MAX_RESULTS}. Hidden files and folders
(names starting with "."), binary files, files over {MAX_FILE_BYTES // (1024 * 1024)} MB and
dependency folders are skipped. View a file to see the matching lines."""


class GrepAction(Action):
    """Arguments of `grep`."""

    pattern: str = Field(min_length=1, description="The regular expression to search for.")
    path: str | None = Field(default=None, description="The folder to search; the workspace.")
    include: str | None = Field(default=None, description='Only files like this, e.g. "*.py".')


class GrepObservation(Observation):
    """The files whose content matched."""

    matches: list[str] = Field(default_factory=list)
    pattern: str = ""
    search_path: str = ""
    include_pattern: str | None = None
    truncated: bool = False


class GrepExecutor:
    """Searches file contents under one workspace."""

    def __init__(self, working_dir: str) -> None:
        self.working_dir = working_dir

    def __call__(
        self, action: GrepAction, conversation: BaseConversation | None = None
    ) -> GrepObservation:
        """List the files under `action.path` whose text matches `action.pattern`."""
        try:
            regex = re.compile(action.pattern, re.IGNORECASE)
        except re.error as exc:
            return GrepObservation.from_text(
                f"Invalid regex pattern: {exc}", is_error=True, pattern=action.pattern
            )
        try:
            files, root = search_root(self.working_dir, action.path)
        except ValueError as exc:
            return GrepObservation.from_text(str(exc), is_error=True, pattern=action.pattern)
        includes = expand_braces(action.include) if action.include else None
        matches = [
            found
            for found in iter_files(files, root)
            if not _hidden(found.relative)
            and (includes is None or any(fnmatch.fnmatch(found.name, i) for i in includes))
            and _matches(found, regex)
        ]
        text, files, truncated = listing(matches, what="matching files")
        return GrepObservation.from_text(
            text,
            matches=files,
            pattern=action.pattern,
            search_path=str(root),
            include_pattern=action.include,
            truncated=truncated,
        )


def _hidden(relative: str) -> bool:
    """Whether a path under the searched folder is, or is inside, a hidden file or folder."""
    return any(part.startswith(".") for part in relative.split("/"))


def _matches(found: FoundFile, regex: re.Pattern[str]) -> bool:
    try:
        data = found.folder.read_bytes(found.name, limit=MAX_FILE_BYTES)
    except OSError:
        return False  # too large, gone, hidden or not a regular file
    if b"\x00" in data[:8192]:
        return False  # binary
    return regex.search(data.decode("utf-8", errors="replace")) is not None


class GrepTool(ToolDefinition):
    """Finds files by their content."""

    description = DESCRIPTION
    action_type = GrepAction
    observation_type = GrepObservation

    def declared_resources(self, action: Action) -> DeclaredResources:
        """Read-only: a search shares nothing with other calls, so it may run beside them."""
        return DeclaredResources(declared=True)

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ToolDefinition]:
        """Build the tool for one conversation; it takes no params.

        Raises ValueError when the conversation's working directory is not a folder.
        """
        if params:
            raise InvalidToolSpecError(f"grep takes no params, got {sorted(params)}")
        check_working_dir(context.working_dir)
        return [cls(executor=GrepExecutor(context.working_dir))]
