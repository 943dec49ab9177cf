"""Replace a file atomically and durably: the one copy of this rule in the project.

`write_atomic` writes a unique temp file in the target's folder (so parallel writers never
collide), fsyncs it, `os.replace`s it over the target and fsyncs the folder (so the rename
itself survives a power loss). Readers see the old file or the new one, never a torn one.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import tempfile
from pathlib import Path

from openhands.sdk.errors import storage_error

__all__ = ["fsync_dir", "write_atomic"]

logger = logging.getLogger(__name__)

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
