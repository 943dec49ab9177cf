"""`write_file` (Gemini style): create a file or replace its whole content."""

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

DESCRIPTION = """Writes content to a file of the workspace: creates it (and its folders) or
replaces its whole content. To change part of a file, use `edit` instead."""


class WriteFileAction(Action):
    """Arguments of `write_file`."""

    file_path: str = Field(description="The path to the file to write to.")
    content: str = Field(description="The content to write to the file.")


class WriteFileObservation(Observation):
    """What `write_file` did."""

    file_path: str | None = Field(default=None, description="The file written.")
    is_new_file: bool = Field(default=False, description="It did not exist before.")
    old_content: str | None = Field(default=None, description="Its content before, if any.")
    new_content: str | None = Field(default=None, description="Its content now.")


class WriteFileExecutor(ToolExecutor[WriteFileAction, WriteFileObservation]):
    """Writes files inside one workspace (each replaced atomically)."""

    def __init__(self, workspace_root: str) -> None:
        self.root = Path(workspace_root).resolve()

    def __call__(
        self, action: WriteFileAction, conversation: BaseConversation | None = None
    ) -> WriteFileObservation:
        """Write the file; a refused path or a disk error is an error observation."""
        try:
            text_files = WorkspaceText(self.root)
            target = text_files.resolve(action.file_path)
            before = text_files.read(target, action.file_path)
            text_files.replace(target, action.content)
        except WorkspacePathError as exc:
            return WriteFileObservation.from_text(
                f"Error: {exc}", is_error=True, file_path=action.file_path
            )
        except OSError as exc:
            return WriteFileObservation.from_text(
                f"Error: {exc.strerror or exc} ({action.file_path})",
                is_error=True,
                file_path=action.file_path,
            )
        verb = "Created" if before is None else "Overwrote"
        return WriteFileObservation.from_text(
            f"{verb} {action.file_path} ({len(action.content.splitlines())} lines).",
            file_path=str(target),
            is_new_file=before is None,
            old_content=before,
            new_content=action.content,
        )


class WriteFileTool(ToolDefinition[WriteFileAction, WriteFileObservation]):
    """Creates or overwrites whole files (Gemini-style file tools)."""

    description = DESCRIPTION
    action_type = WriteFileAction
    observation_type = WriteFileObservation
    annotations = ToolAnnotations(
        title="write_file", readOnlyHint=False, destructiveHint=True, openWorldHint=False
    )

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[WriteFileTool]:
        """Build the tool for one workspace; it takes no params."""
        if params:
            raise InvalidToolSpecError(f"write_file takes no params, got {sorted(params)}")
        return [cls(executor=WriteFileExecutor(context.working_dir))]
