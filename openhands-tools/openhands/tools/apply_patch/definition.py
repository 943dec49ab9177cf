"""`ApplyPatchTool`: edit files by sending one patch in the apply_patch format.

This is the editing tool GPT-5-class models are trained on (see `patch.py` for the format);
the GPT-5 preset (`openhands.tools.preset.gpt5`) gives it instead of `file_editor`. Paths are
relative to the workspace (absolute ones must lie inside it). A patch is all or nothing:
every hunk is checked first, then the files are replaced one by one (each atomically), and
if a write fails the files already written are put back.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openhands.sdk.tool import (
    Action,
    InvalidToolSpecError,
    Observation,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
)
from openhands.tools.apply_patch.patch import PatchError, parse_patch, plan_patch
from openhands.tools.text_files import WorkspacePathError, WorkspaceText
from pydantic import Field

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

__all__ = ["ApplyPatchAction", "ApplyPatchExecutor", "ApplyPatchObservation", "ApplyPatchTool"]

DESCRIPTION = """Edit files by applying a patch. The patch starts with '*** Begin Patch' and
ends with '*** End Patch'; in between, one section per file:
*** Add File: <path>        then the new file's lines, each prefixed with '+'
*** Delete File: <path>
*** Update File: <path>     optionally '*** Move to: <new path>', then hunks: an optional
'@@ <a line to find first>', then lines prefixed with ' ' (context, unchanged), '-' (removed)
or '+' (added). Give about 3 lines of context around each change, exactly as in the file.
Paths are relative to the workspace. If any hunk does not match, no file is changed."""


class ApplyPatchAction(Action):
    """Arguments of `apply_patch`."""

    patch: str = Field(
        description="The patch, from '*** Begin Patch' to '*** End Patch' (see the description)."
    )


class ApplyPatchObservation(Observation):
    """The result of a patch: the files changed (A added, M modified, D deleted)."""

    message: str = Field(default="", description="A summary of what changed, or why not.")
    fuzz: int = Field(default=0, description="0: every hunk matched exactly; more: looser.")
    changed: list[str] = Field(default_factory=list, description="'<A|M|D> <path>' lines.")


class ApplyPatchExecutor(ToolExecutor[ApplyPatchAction, ApplyPatchObservation]):
    """Applies patches inside one workspace (one patch at a time)."""

    def __init__(self, workspace_root: str) -> None:
        self.workspace_root = Path(workspace_root).resolve()
        self._lock = threading.Lock()

    def resolve(self, path: str, text_files: WorkspaceText | None = None) -> Path:
        """The absolute path of a patch path; PatchError when it leaves the workspace."""
        try:
            return (text_files or WorkspaceText(self.workspace_root)).resolve(path)
        except WorkspacePathError as exc:
            raise PatchError(str(exc)) from None

    def __call__(
        self, action: ApplyPatchAction, conversation: BaseConversation | None = None
    ) -> ApplyPatchObservation:
        """Apply one patch; a patch that cannot be applied changes nothing and says why."""
        with self._lock:
            text_files = WorkspaceText(self.workspace_root)

            def read(path: str) -> str | None:
                try:
                    return text_files.read(self.resolve(path, text_files), path)
                except WorkspacePathError as exc:
                    raise PatchError(f"{exc}; it cannot be patched") from None

            try:
                plan = plan_patch(parse_patch(action.patch), read)
                changes = [
                    (self.resolve(change.path, text_files), change.content)
                    for change in plan.changes
                ]
                text_files.apply(changes)
            except (PatchError, WorkspacePathError) as exc:
                return ApplyPatchObservation.from_text(
                    f"Error: {exc}", is_error=True, message=str(exc)
                )
            except OSError as exc:
                reason = f"{exc.strerror or exc} ({exc.filename or 'a file'})"
                return ApplyPatchObservation.from_text(
                    f"Error: {reason}; no file was changed.", is_error=True, message=reason
                )
        changed = [
            f"{c.kind} {c.path}" + (f" (moved from {c.moved_from})" if c.moved_from else "")
            for c in plan.changes
        ]
        message = "Done. Changed files:\n" + "\n".join(changed)
        return ApplyPatchObservation.from_text(
            message, message=message, fuzz=plan.fuzz, changed=changed
        )


class ApplyPatchTool(ToolDefinition[ApplyPatchAction, ApplyPatchObservation]):
    """Edits files with patches in the apply_patch format (for GPT-5-class models)."""

    name = "apply_patch"
    description = DESCRIPTION
    action_type = ApplyPatchAction
    observation_type = ApplyPatchObservation
    annotations = ToolAnnotations(
        title="apply_patch",
        readOnlyHint=False,
        destructiveHint=True,
        idempotentHint=False,
        openWorldHint=False,
    )

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ApplyPatchTool]:
        """Build the tool for one conversation's workspace; it takes no params."""
        if params:
            raise InvalidToolSpecError(f"apply_patch takes no params, got {sorted(params)}")
        return [cls(executor=ApplyPatchExecutor(context.working_dir))]
