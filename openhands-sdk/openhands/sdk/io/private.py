"""Files and folders only their owner may read: what conversations are stored in.

A conversation's log holds everything the agent saw and said; other local users must not read
it. Every file the SDK and the server write for a conversation is created with
`PRIVATE_FILE_MODE` (0600) and every folder with `PRIVATE_DIR_MODE` (0700), whatever the
process's umask allows (`write_atomic`'s temp files are 0600 already).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

__all__ = ["PRIVATE_DIR_MODE", "PRIVATE_FILE_MODE", "make_private", "make_private_dir"]

PRIVATE_FILE_MODE = 0o600
"""Mode of every file written for a conversation (read and write for the owner only)."""

PRIVATE_DIR_MODE = 0o700
"""Mode of every folder made for conversations (only the owner may list or enter it)."""


def make_private_dir(path: str | Path) -> Path:
    """Create `path` and any missing parent as private folders (existing ones are kept as
    they are); return it. Raises OSError like `Path.mkdir`."""
    folder = Path(path)
    missing: list[Path] = []
    current = folder
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for item in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another thread
            item.mkdir(mode=PRIVATE_DIR_MODE)
    if not folder.is_dir():
        raise NotADirectoryError(f"{folder} exists and is not a folder")
    return folder


def make_private(path: str | Path) -> bool:
    """Take group and other permissions off an existing file or folder; True if it changed.

    For data written before files were made private (an older version, another umask).
    """
    target = Path(path)
    mode = stat.S_IMODE(target.stat().st_mode)
    if not mode & 0o077:
        return False
    os.chmod(target, mode & 0o700)
    return True
