"""`read_file` (Gemini style): a text file's content, one page of lines at a time."""

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

DEFAULT_LINE_LIMIT = 2000
"""Lines returned when the call gives no `limit`."""
MAX_LINE_CHARS = 2000
"""Longer lines are cut (with a note) so one minified line cannot flood the context."""

DESCRIPTION = """Reads a text file of the workspace and returns its content. For a large file,
page with `offset` (the 0-based line to start at) and `limit` (how many lines); without them
the first 2000 lines are returned and the answer says when there is more."""


class ReadFileAction(Action):
    """Arguments of `read_file`."""

    file_path: str = Field(description="The path to the file to read.")
    offset: int | None = Field(
        default=None, ge=0, description="The 0-based line number to start reading from."
    )
    limit: int | None = Field(default=None, ge=1, description="How many lines to read at most.")


class ReadFileObservation(Observation):
    """A page of a file."""

    file_path: str = Field(default="", description="The file that was read.")
    file_content: str = Field(default="", description="The lines read.")
    is_truncated: bool = Field(default=False, description="More lines follow.")
    lines_shown: tuple[int, int] | None = Field(
        default=None, description="The 1-based first and last lines shown."
    )
    total_lines: int | None = Field(default=None, description="The file's line count.")


class ReadFileExecutor(ToolExecutor[ReadFileAction, ReadFileObservation]):
    """Reads files inside one workspace."""

    def __init__(self, workspace_root: str) -> None:
        self.root = Path(workspace_root).resolve()

    def __call__(
        self, action: ReadFileAction, conversation: BaseConversation | None = None
    ) -> ReadFileObservation:
        """Read one page; a missing file or a refused path is an error observation."""
        try:
            text_files = WorkspaceText(self.root)
            target = text_files.resolve(action.file_path)
            text = text_files.read(target, action.file_path)
        except WorkspacePathError as exc:
            return ReadFileObservation.from_text(
                f"Error: {exc}", is_error=True, file_path=action.file_path
            )
        if text is None:
            return ReadFileObservation.from_text(
                f"Error: {action.file_path} does not exist",
                is_error=True,
                file_path=action.file_path,
            )
        lines = text.splitlines()
        start = action.offset or 0
        if lines and start >= len(lines):
            return ReadFileObservation.from_text(
                f"Error: offset {start} is past the end ({len(lines)} lines)",
                is_error=True,
                file_path=action.file_path,
                total_lines=len(lines),
            )
        end = min(len(lines), start + (action.limit or DEFAULT_LINE_LIMIT))
        page = [
            line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + " [line cut]"
            for line in lines[start:end]
        ]
        content = "\n".join(page)
        truncated = end < len(lines)
        shown = (start + 1, end) if lines else None
        text_out = content
        if truncated:
            text_out += f"\n\n[Lines {start + 1}-{end} of {len(lines)}; read on with offset={end}.]"
        return ReadFileObservation.from_text(
            text_out or "(the file is empty)",
            file_path=str(target),
            file_content=content,
            is_truncated=truncated,
            lines_shown=shown,
            total_lines=len(lines),
        )


class ReadFileTool(ToolDefinition[ReadFileAction, ReadFileObservation]):
    """Reads text files page by page (Gemini-style file tools)."""

    description = DESCRIPTION
    action_type = ReadFileAction
    observation_type = ReadFileObservation
    annotations = ToolAnnotations(
        title="read_file", readOnlyHint=True, destructiveHint=False, openWorldHint=False
    )

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ReadFileTool]:
        """Build the tool for one workspace; it takes no params."""
        if params:
            raise InvalidToolSpecError(f"read_file takes no params, got {sorted(params)}")
        return [cls(executor=ReadFileExecutor(context.working_dir))]
