"""Replace a file atomically and durably: the one copy of this rule in the project.

`write_atomic` writes a unique temp file in the target's folder (so parallel writers never
collide), fsyncs it, `os.replace`s it over the target and fsyncs the folder (so the rename
itself survives a power loss). Readers see the old file or the new one, never a torn one.

A process killed between the temp file's creation and the rename (kill -9, a power loss)
leaves `.<name>.<random>.tmp` behind: `remove_leftover_temp_files` removes those of a folder
whose owner (a store, a conversation) is being opened. Only files older than this process's
first use of this module are taken, so a temp file another live process is writing is kept.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from openhands.sdk.errors import storage_error

__all__ = ["fsync_dir", "remove_leftover_temp_files", "write_atomic"]

logger = logging.getLogger(__name__)

_TEMP_NAME = re.compile(r"^\.(?P<target>.+)\.[A-Za-z0-9_]{8}\.tmp$")
"""A temp file of `write_atomic` (mkstemp's 8 random characters between the two parts)."""

_STARTED = time.time()
"""When this process first imported this module (or was forked from one that had: a server
preloaded by a forking supervisor): temp files older than that are not its."""


def _restart_clock() -> None:
    global _STARTED
    _STARTED = time.time()


os.register_at_fork(after_in_child=_restart_clock)

_NO_DIR_FSYNC = frozenset({errno.EINVAL, errno.ENOTSUP, errno.EBADF})
"""Errors of a file system that cannot fsync a folder (nothing more can be done there)."""


def fsync_dir(folder: str | Path) -> None:
    """Make a folder's entries (a new or renamed file) durable.

    File systems that cannot fsync a folder are tolerated; any other failure raises OSError.
    """
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _NO_DIR_FSYNC:
            raise
    finally:
        os.close(fd)


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Replace `path` with `data` (text is UTF-8) atomically and durably.

    Raises `StorageError` (`StorageFullError` for a full disk) when the disk refuses: the
    previous file is then left as it was and no temp file is left behind.
    """
    target = Path(path)
    payload = data.encode() if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise storage_error("write", target, exc) from exc
    try:
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise storage_error("write", target, exc) from exc
        raise
    try:
        fsync_dir(target.parent)
    except OSError as exc:
        # The new content is in place and readable, so this is not a failed write; only
        # the rename's survival of a power loss is in doubt.
        logger.warning("Could not fsync the folder of %s after replacing it: %s", target, exc)


def remove_leftover_temp_files(
    folder: str | Path, names: Iterable[str] | None = None
) -> list[Path]:
    """Remove the temp files an interrupted `write_atomic` left in `folder`; the removed.

    Only `write_atomic`'s own names (`.<target>.<8 characters>.tmp`), only regular files (or
    links), only for the targets in `names` (None: any target), and only files last changed
    before this process started using this module. A folder that is missing or unreadable,
    or a file that cannot be removed, is logged and skipped: this is housekeeping.
    """
    targets = None if names is None else set(names)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return removed
    except OSError as exc:
        logger.warning("Could not look for leftover temp files in %s: %s", folder, exc)
        return removed
    for entry in entries:
        match = _TEMP_NAME.match(entry.name)
        if match is None or (targets is not None and match["target"] not in targets):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode) or info.st_mtime >= _STARTED:
                continue
            os.unlink(entry.path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            logger.warning("Could not remove the leftover temp file %s: %s", entry.path, exc)
            continue
        removed.append(Path(entry.path))
    if removed:
        logger.info(
            "Removed %d temp file(s) of interrupted writes in %s: %s",
            len(removed),
            folder,
            ", ".join(path.name for path in removed),
        )
    return removed
