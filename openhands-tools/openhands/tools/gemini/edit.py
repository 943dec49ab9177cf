"""`edit` (Gemini style): replace an exact piece of text in a file (or create a file)."""

from __future__ import annotations

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
from openhands.tools.text_files import WorkspacePathError, WorkspaceText
from pydantic import Field

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

DESCRIPTION = """Replaces text in a file of the workspace. `old_string` must match the file
exactly (whitespace and indentation included) `expected_replacements` times (1 by default);
include a few lines around the change so it matches only where you mean. An empty
`old_string` creates a new file with `new_string` (the file must not exist)."""


class EditAction(Action):
    """Arguments of `edit`."""

    file_path: str = Field(description="The path to the file to modify.")
    old_string: str = Field(
        description="The exact text to replace (empty: create a new file with new_string)."
    )
    new_string: str = Field(description="The text to replace it with.")
    expected_replacements: int = Field(
        default=1, ge=1, description="How many times old_string occurs and is replaced."
    )


class EditObservation(Observation):
    """What `edit` did."""

    file_path: str | None = Field(default=None, description="The file edited.")
    is_new_file: bool = Field(default=False, description="The edit created the file.")
    replacements_made: int = Field(default=0, description="How many replacements were made.")
    old_content: str | None = Field(default=None, description="Its content before.")
    new_content: str | None = Field(default=None, description="Its content after.")


class EditExecutor(ToolExecutor[EditAction, EditObservation]):
    """Edits files inside one workspace (each replaced atomically)."""

    def __init__(self, workspace_root: str) -> None:
        self.root = Path(workspace_root).resolve()

    def __call__(
        self, action: EditAction, conversation: BaseConversation | None = None
    ) -> EditObservation:
        """Make the edit, or say why not (the file is then unchanged)."""
        try:
            text_files = WorkspaceText(self.root)
            target = text_files.resolve(action.file_path)
            before = text_files.read(target, action.file_path)
            after, count = self._edited(action, before)
            text_files.replace(target, after)
        except WorkspacePathError as exc:
            return EditObservation.from_text(
                f"Error: {exc}", is_error=True, file_path=action.file_path
            )
        except OSError as exc:
            return EditObservation.from_text(
                f"Error: {exc.strerror or exc} ({action.file_path})",
                is_error=True,
                file_path=action.file_path,
            )
        text = (
            f"Created {action.file_path}."
            if before is None
            else f"Edited {action.file_path}: {count} replacement(s)."
        )
        return EditObservation.from_text(
            text,
            file_path=str(target),
            is_new_file=before is None,
            replacements_made=count,
            old_content=before,
            new_content=after,
        )

    @staticmethod
    def _edited(action: EditAction, before: str | None) -> tuple[str, int]:
        if before is None:
            if action.old_string:
                raise WorkspacePathError(
                    f"{action.file_path} does not exist; to create it, give an empty old_string"
                )
            return action.new_string, 1
        if not action.old_string:
            raise WorkspacePathError(
                f"{action.file_path} exists already; an empty old_string only creates new files"
            )
        found = before.count(action.old_string)
        if found == 0:
            raise WorkspacePathError(
                f"old_string was not found in {action.file_path}; read the file and copy the "
                "text exactly (whitespace and indentation included)"
            )
        if found != action.expected_replacements:
            raise WorkspacePathError(
                f"old_string occurs {found} times in {action.file_path}, not "
                f"{action.expected_replacements}; add surrounding lines to make it unique, or "
                f"set expected_replacements={found} to replace every one"
            )
        if action.old_string == action.new_string:
            raise WorkspacePathError("old_string and new_string are the same: nothing to change")
        return before.replace(action.old_string, action.new_string), found


class EditTool(ToolDefinition[EditAction, EditObservation]):
    """Replaces exact text in files (Gemini-style file tools)."""

    description = DESCRIPTION
    action_type = EditAction
    observation_type = EditObservation
    annotations = ToolAnnotations(
        title="edit", readOnlyHint=False, destructiveHint=True, openWorldHint=False
    )

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[EditTool]:
        """Build the tool for one workspace; it takes no params."""
        if params:
            raise InvalidToolSpecError(f"edit takes no params, got {sorted(params)}")
        return [cls(executor=EditExecutor(context.working_dir))]
