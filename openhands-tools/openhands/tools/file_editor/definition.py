"""`FileEditorTool`: view, create and edit text files in the workspace."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from openhands.sdk.tool import (
    Action,
    DeclaredResources,
    InvalidToolSpecError,
    Observation,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
)
from openhands.tools.file_editor.editor import FileEditor
from openhands.tools.file_editor.views import EditorError
from pydantic import Field

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

Command = Literal["view", "create", "str_replace", "insert", "undo_edit"]

DESCRIPTION = """View, create and edit plain-text files.
* `view`: a file with line numbers (`view_range` [start, end] pages through big files; end -1
  means to the end), or a directory listed two levels deep (hidden items skipped).
* `create`: write a NEW file with `file_text` (parent folders are created). It never
  overwrites: edit existing files with str_replace/insert.
* `str_replace`: replace `old_str` with `new_str`. `old_str` must match EXACTLY ONE place in
  the file, whitespace included (leading/trailing whitespace is forgiven when the rest is
  unique); add surrounding lines to make it unique. An empty `new_str` deletes the text.
* `insert`: insert `new_str` after line `insert_line` (0 = at the top).
* `undo_edit`: revert the last edit made to `path` with this tool.
Paths may be absolute or relative to the workspace. Binary files are refused."""


class FileEditorAction(Action):
    """Arguments of `file_editor`."""

    command: Command = Field(description="One of view, create, str_replace, insert, undo_edit.")
    path: str = Field(description="File or directory path, absolute or relative to the workspace.")
    file_text: str | None = Field(default=None, description="`create`: the new file's content.")
    old_str: str | None = Field(
        default=None, description="`str_replace`: the exact text to replace (must be unique)."
    )
    new_str: str | None = Field(
        default=None, description="`str_replace`: the replacement; `insert`: the text to insert."
    )
    insert_line: int | None = Field(
        default=None, ge=0, description="`insert`: insert after this line (0 = top of the file)."
    )
    view_range: list[int] | None = Field(
        default=None, description="`view`: [start, end] line numbers, 1-based; end -1 = to the end."
    )


class FileEditorObservation(Observation):
    """The result of one file_editor command."""

    command: str = ""
    path: str = ""


class FileEditorExecutor(ToolExecutor[FileEditorAction, FileEditorObservation]):
    """Dispatches file_editor actions to one `FileEditor` (one undo history per conversation)."""

    def __init__(self, working_dir: str) -> None:
        self.editor = FileEditor(working_dir)
        self._lock = threading.Lock()

    def __call__(
        self, action: FileEditorAction, conversation: BaseConversation | None = None
    ) -> FileEditorObservation:
        """Run one command; a refused command comes back as an error observation."""
        editor = self.editor
        with self._lock:
            try:
                path = str(editor.resolve(action.path))
                if action.command == "view":
                    text = editor.view(action.path, action.view_range)
                elif action.command == "create":
                    text = editor.create(action.path, action.file_text)
                elif action.command == "str_replace":
                    text = editor.str_replace(action.path, action.old_str, action.new_str)
                elif action.command == "insert":
                    text = editor.insert(action.path, action.insert_line, action.new_str)
                else:
                    text = editor.undo_edit(action.path)
            except EditorError as exc:
                return FileEditorObservation.from_text(
                    f"Error: {exc}", is_error=True, command=action.command, path=action.path
                )
            except OSError as exc:
                return FileEditorObservation.from_text(
                    f"Error: {exc.strerror or exc} ({exc.filename or action.path}).",
                    is_error=True,
                    command=action.command,
                    path=action.path,
                )
        return FileEditorObservation.from_text(text, command=action.command, path=path)


class FileEditorTool(ToolDefinition[FileEditorAction, FileEditorObservation]):
    """Views and edits text files with exact-match replacements and undo."""

    description = DESCRIPTION
    action_type = FileEditorAction
    observation_type = FileEditorObservation

    def declared_resources(self, action: Action) -> DeclaredResources:
        """The file the action touches (`file:<absolute path>`, relative paths taken from
        the workspace): calls on different files may run at the same time, any command on
        one file (a view too) waits for the others on it."""
        path = getattr(action, "path", "")
        working_dir = getattr(getattr(self.executor, "editor", None), "working_dir", "")
        absolute = os.path.normpath(os.path.join(working_dir, os.path.expanduser(path)))
        return DeclaredResources(keys=(f"file:{absolute}",), declared=True)

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[FileEditorTool]:
        """Build the editor for one conversation; it takes no params. The description
        names the conversation's working directory (relative paths start there)."""
        if params:
            raise InvalidToolSpecError(f"file_editor takes no params, got {sorted(params)}")
        return [
            cls(
                description=f"{DESCRIPTION}\nYour current working directory is: "
                f"{context.working_dir}",
                executor=FileEditorExecutor(context.working_dir),
            )
        ]
