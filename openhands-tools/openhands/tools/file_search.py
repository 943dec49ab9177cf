"""What the `glob` and `grep` tools share: walking a folder, brace patterns, result order."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.workspace.sandbox import HiddenPathError, check_visible, hidden_paths

MAX_RESULTS: Final[int] = 100
"""How many paths `glob` and `grep` return at most (newest first); the rest is counted."""

SKIPPED_DIRS: Final[frozenset[str]] = frozenset({".git", ".hg", ".svn", "node_modules", ".venv"})
"""Folders never searched: version-control data and installed dependencies."""

_BRACES = re.compile(r"\{([^{}]*)\}")


def expand_braces(pattern: str) -> list[str]:
    """`*.{ts,tsx}` -> [`*.ts`, `*.tsx`] (several groups multiply; no nesting)."""
    match = _BRACES.search(pattern)
    if match is None:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [
        expanded
        for option in match.group(1).split(",")
        for expanded in expand_braces(head + option + tail)
    ]


def search_root(working_dir: str, path: str | None) -> Path:
    """The folder to search: `path` (absolute, or relative to the workspace) or the workspace.

    ValueError if it is not an existing folder.
    """
    root = Path(working_dir)
    if path:
        given = Path(os.path.expanduser(path))
        root = given if given.is_absolute() else root / given
    if not root.is_dir():
        raise InvalidArgumentError(f"{root} is not a folder; give an existing directory as `path`.")
    try:  # these tools run in the server's process: only what the agent's sandbox shows
        check_visible(root, workspace=working_dir)
    except HiddenPathError as exc:
        raise InvalidArgumentError(str(exc)) from None
    return Path(os.path.abspath(root))


def iter_files(root: Path, working_dir: str) -> Iterator[Path]:
    """Every regular file under `root`, skipping `SKIPPED_DIRS`, symlinked folders and what
    the sandbox of `working_dir` hides."""
    hidden = hidden_paths(working_dir)
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d for d in dirs if d not in SKIPPED_DIRS and not hidden(os.path.join(folder, d))
        )
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_file() and not hidden(path):
                yield path


def newest_first(paths: list[Path]) -> list[Path]:
    """`paths` by modification time, newest first (vanished files last)."""

    def mtime(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return float("-inf")

    return sorted(paths, key=mtime, reverse=True)


def listing(paths: list[Path], *, what: str) -> tuple[str, list[str], bool]:
    """`(text, shown paths, truncated)` for up to `MAX_RESULTS` of `paths`, newest first."""
    ordered = [str(path) for path in newest_first(paths)]
    shown = ordered[:MAX_RESULTS]
    if not shown:
        return f"No {what} found.", [], False
    text = "\n".join(shown)
    truncated = len(ordered) > len(shown)
    if truncated:
        text += (
            f"\n[{len(ordered) - len(shown)} more {what} not shown: narrow the pattern or the "
            "path.]"
        )
    return text, shown, truncated
