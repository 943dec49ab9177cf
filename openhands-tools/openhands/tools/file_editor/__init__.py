"""The file editor tool: view, create, str_replace, insert and undo_edit on text files."""

from openhands.tools.file_editor.definition import (
    FileEditorAction,
    FileEditorExecutor,
    FileEditorObservation,
    FileEditorTool,
)
from openhands.tools.file_editor.editor import FileEditor
from openhands.tools.file_editor.views import EditorError

__all__ = [
    "EditorError",
    "FileEditor",
    "FileEditorAction",
    "FileEditorExecutor",
    "FileEditorObservation",
    "FileEditorTool",
]
