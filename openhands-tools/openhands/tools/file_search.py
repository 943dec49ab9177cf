"""What the `glob` and `grep` tools share: walking a folder, brace patterns, result order."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.workspace.agent_files import AgentFiles, Folder, agent_files
from openhands.sdk.workspace.file_errors import AgentFileError

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


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob over `/`-separated relative paths as pathlib reads it: `**` is any number of
    folders (none included), `*`, `?` and `[...]` stay inside one name."""
    parts = pattern.split("/")
    pieces: list[str] = []
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        if part == "**":
            pieces.append(".*" if last else "(?:[^/]*/)*")
        else:
            pieces.append(_name_regex(part) + ("" if last else "/"))
    return re.compile("".join(pieces) + r"\Z", re.DOTALL)


def _name_regex(name: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(name):
        char = name[index]
        index += 1
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (close := name.find("]", index + 1)) != -1:
            inner = name[index:close]
            index = close + 1
            negate = inner.startswith("!")
            body = re.escape(inner[1:] if negate else inner).replace("\\-", "-")
            out.append(f"[{'^/' if negate else ''}{body}]")
        else:
            out.append(re.escape(char))
    return "".join(out)


@dataclass(frozen=True)
class FoundFile:
    """One file a search walked past: its path, its modification time, and the folder it
    was found in (readable while the search is at it)."""

    path: Path
    relative: str
    mtime: float
    folder: Folder
    name: str


def check_working_dir(working_dir: str) -> None:
    """Raise `InvalidArgumentError` (a ValueError) unless `working_dir` is a folder: a search
    tool built for a workspace that does not exist would fail every call."""
    if not os.path.isdir(working_dir):
        raise InvalidArgumentError(
            f"working_dir {working_dir!r} is not a valid directory; create it or give the "
            "conversation an existing workspace"
        )


def search_root(working_dir: str, path: str | None) -> tuple[AgentFiles, Path]:
    """The files the agent may see and the folder to search: `path` (absolute, or relative
    to the workspace) or the workspace.

    ValueError if it is not an existing folder the agent's sandbox shows.
    """
    files = agent_files(working_dir)
    try:
        root = Path(os.path.normpath(files.absolute(path or working_dir)))
        if not files.is_dir(root):
            raise InvalidArgumentError(
                f"{root} is not a valid directory; give an existing folder as `path`."
            )
    except AgentFileError as exc:
        raise InvalidArgumentError(str(exc)) from None
    return files, root


def iter_files(files: AgentFiles, root: Path) -> Iterator[FoundFile]:
    """Every regular file under `root` the agent's sandbox shows, skipping `SKIPPED_DIRS` and
    symlinked folders; a symlink to a file is followed (with every check)."""
    for folder in files.walk(root, skip=SKIPPED_DIRS.__contains__):
        for entry in folder.files:
            mtime = entry.mtime
            if entry.kind == "link":
                try:
                    target = files.stat(entry.path)
                except OSError:
                    continue  # dangling, hidden or leaving the view
                if not stat.S_ISREG(target.st_mode):
                    continue
                mtime = target.st_mtime
            path = Path(entry.path)
            yield FoundFile(
                path=path,
                relative=path.relative_to(root).as_posix(),
                mtime=mtime,
                folder=folder,
                name=entry.name,
            )


def listing(found: list[FoundFile], *, what: str) -> tuple[str, list[str], bool]:
    """`(text, shown paths, truncated)` for up to `MAX_RESULTS` of `found`, newest first."""
    ordered = [str(item.path) for item in sorted(found, key=lambda f: f.mtime, reverse=True)]
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
