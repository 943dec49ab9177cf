"""What the model-specific file tools share (apply_patch, the Gemini tools): paths confined
to the workspace, reading UTF-8 text, and replacing files without ever leaving one torn.

Every operation goes through `AgentFiles` with the workspace as its floor: the paths a tool
is given, and every symlink on the way, must stay inside the workspace; what the agent's
sandbox hides stays hidden; nothing is checked by name and opened after.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.workspace.agent_files import AgentFiles, agent_files
from openhands.sdk.workspace.file_batch import apply_changes
from openhands.sdk.workspace.file_errors import (
    AgentFileError,
    FileTooLargeError,
    MissingPathError,
)

__all__ = ["MAX_TEXT_BYTES", "WorkspacePathError", "WorkspaceText"]

MAX_TEXT_BYTES = 20 * 1024 * 1024
"""The largest file these tools read or patch (bigger ones: the terminal's tools)."""


class WorkspacePathError(OpenHandsError, ValueError):
    """A path the tool refuses: outside the workspace, hidden, a folder, or not UTF-8 text."""


class WorkspaceText:
    """Text files of one workspace, as these tools may touch them (see the module docs).

    Make one per tool call: it holds the sandbox's view as it was when it was made."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(os.path.abspath(root))
        self.files: AgentFiles = agent_files(self.root, floor=self.root)

    def resolve(self, path: str) -> Path:
        """`path` (relative to the workspace, or absolute inside it) as an absolute path;
        refused when it leaves the workspace, also through a symlink, or is hidden."""
        if not path.strip():
            raise WorkspacePathError("the path is empty: give a file path")
        try:
            full = Path(os.path.normpath(self.files.absolute(path)))
            if not full.is_relative_to(self.root):
                raise WorkspacePathError(f"{path} is outside the workspace {self.root}")
            self.files.exists(full)  # walks it: a link out or a hidden folder refuses
        except AgentFileError as exc:
            raise WorkspacePathError(_outside(path, self.root, exc)) from None
        return full

    def read(self, target: Path, shown_as: str) -> str | None:
        """The file's text (line ends kept), None when it does not exist."""
        try:
            if self.files.is_dir(target):
                raise WorkspacePathError(f"{shown_as} is a directory, not a file")
            data = self.files.read_bytes(target, limit=MAX_TEXT_BYTES)
        except MissingPathError:
            return None
        except FileTooLargeError:
            raise WorkspacePathError(
                f"{shown_as} is larger than {MAX_TEXT_BYTES // (1024 * 1024)} MB: use the "
                "terminal for it"
            ) from None
        except AgentFileError as exc:
            raise WorkspacePathError(_outside(shown_as, self.root, exc)) from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise WorkspacePathError(f"{shown_as} is not a UTF-8 text file") from None

    def replace(self, target: Path, content: str) -> None:
        """Replace (or create, with its folders) `target`: readers see the old or the new
        file."""
        try:
            self.files.write_text(target, content, parents=True)
        except AgentFileError as exc:
            raise WorkspacePathError(_outside(str(target), self.root, exc)) from None

    def apply(self, changes: Sequence[tuple[Path, str | None]]) -> None:
        """Write every change (`None` deletes the file) or none of them."""
        encoded = [
            (target, None if text is None else text.encode("utf-8")) for target, text in changes
        ]
        try:
            apply_changes(self.files, encoded)
        except AgentFileError as exc:
            raise WorkspacePathError(f"{exc}; no file was changed") from None


def _outside(path: str, root: Path, exc: AgentFileError) -> str:
    return f"{path}: {exc} (these tools work inside the workspace {root})"
