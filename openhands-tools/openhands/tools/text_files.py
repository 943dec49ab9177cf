"""What the model-specific file tools share (apply_patch, the Gemini tools): paths confined
to the workspace, reading UTF-8 text, and replacing a file without ever leaving it torn."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.workspace.sandbox import HiddenPathError, check_visible

__all__ = ["WorkspacePathError", "read_text", "replace_text", "resolve_in_workspace", "stage_text"]


class WorkspacePathError(OpenHandsError, ValueError):
    """A path the tool refuses: outside the workspace, a folder, or not UTF-8 text."""


def resolve_in_workspace(root: Path, path: str) -> Path:
    """`path` (relative to `root`, or absolute inside it) resolved; refused when it leaves
    the workspace (symlinks included)."""
    if not path.strip():
        raise WorkspacePathError("the path is empty: give a file path")
    candidate = Path(path).expanduser()
    if not candidate.is_absolute():
        candidate = root / candidate
    resolved = candidate.resolve()
    if not resolved.is_relative_to(root):
        raise WorkspacePathError(f"{path} is outside the workspace {root}")
    try:  # a server's folder inside the workspace stays hidden, as in the sandbox
        check_visible(resolved, workspace=root)
    except HiddenPathError as exc:
        raise WorkspacePathError(str(exc)) from None
    return resolved


def read_text(target: Path, shown_as: str) -> str | None:
    """The file's text (line ends kept), None when it does not exist."""
    if target.is_dir():
        raise WorkspacePathError(f"{shown_as} is a directory, not a file")
    try:
        with open(target, encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise WorkspacePathError(f"{shown_as} is not a UTF-8 text file") from None


def stage_text(target: Path, content: str) -> Path:
    """Write `content` to a new temp file beside `target` (its mode copied if it exists);
    `os.replace` it over `target` to swap it in."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".new", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(content)
        if target.exists():
            os.chmod(name, target.stat().st_mode & 0o7777)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    return Path(name)


def replace_text(target: Path, content: str) -> None:
    """Replace (or create) `target` with `content`: readers see the old or the new file."""
    staged = stage_text(target, content)
    try:
        os.replace(staged, target)
    except BaseException:
        with contextlib.suppress(OSError):
            staged.unlink()
        raise
