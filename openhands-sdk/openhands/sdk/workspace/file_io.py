"""The system calls under `AgentFiles`: reading a checked regular file within a limit,
listing a folder by descriptor, and writing files beside their targets by descriptor."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from dataclasses import dataclass

from openhands.sdk.workspace.fd_paths import Node
from openhands.sdk.workspace.file_errors import (
    FileTooLargeError,
    NotARegularFileError,
    PathChangedError,
)
from openhands.sdk.workspace.file_view import FileView

__all__ = [
    "READ_FLAGS",
    "Entry",
    "create_file",
    "list_entries",
    "open_regular",
    "read_capped",
    "replace_file",
    "write_temp",
]

READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
"""How a file is opened for reading: never through a final link, never blocking on a FIFO."""

_CHUNK = 1 << 16


@dataclass(frozen=True)
class Entry:
    """One entry of a folder listing (`AgentFiles.list_dir`)."""

    name: str
    path: str
    """The entry's path as the caller named its folder (links not resolved)."""
    kind: str
    """"file", "dir", "link" or "other" (FIFO, socket, device), of the entry itself."""
    size: int
    mtime: float


# -- the calls -------------------------------------------------------------------------------


def open_regular(parent: Node, name: str, node: Node, shown: str) -> int:
    """Open `name` in `parent` for reading; it must still be the regular file `node`."""
    if node.is_dir:
        raise NotARegularFileError(f"{shown} is a folder, not a file", shown)
    if not stat.S_ISREG(node.mode):
        raise NotARegularFileError(
            f"{shown} is not a regular file (a FIFO, socket or device): it cannot be read "
            "here; read it in the terminal if you must.",
            shown,
        )
    fd = os.open(name, READ_FLAGS, dir_fd=parent.fd)
    found = os.fstat(fd)
    if (found.st_dev, found.st_ino) != node.identity or not stat.S_ISREG(found.st_mode):
        os.close(fd)
        raise PathChangedError(f"{shown} was replaced while it was opened: retry", shown)
    return fd


def read_capped(fd: int, limit: int, shown: str) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise FileTooLargeError(f"{shown} is larger than {limit} bytes", shown)


def list_entries(view: FileView, fd: int, kind: str, shown: str) -> list[Entry]:
    entries: list[Entry] = []
    with os.scandir(fd) as scan:
        for item in scan:
            try:
                found = item.stat(follow_symlinks=False)
            except OSError:
                continue  # gone meanwhile
            identity = (found.st_dev, found.st_ino)
            child = view.kind_below(kind, identity)  # type: ignore[arg-type]
            if not view.shows(child, identity):
                continue
            mode = found.st_mode
            entry_kind = (
                "dir"
                if stat.S_ISDIR(mode)
                else "file"
                if stat.S_ISREG(mode)
                else "link"
                if stat.S_ISLNK(mode)
                else "other"
            )
            entries.append(
                Entry(
                    name=item.name,
                    path=os.path.join(shown, item.name),
                    kind=entry_kind,
                    size=found.st_size,
                    mtime=found.st_mtime,
                )
            )
    entries.sort(key=lambda entry: entry.name)
    return entries


def create_file(parent_fd: int, name: str, data: bytes, mode: int | None) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(name, flags, 0o666, dir_fd=parent_fd)
    try:
        _write_all(fd, data)
        if mode is not None:
            os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=parent_fd)
        raise
    os.close(fd)


def write_temp(parent_fd: int, name: str, data: bytes, mode: int | None) -> str:
    """Write `data` to a new temp file beside `name` in the folder `parent_fd` (with `mode`
    when given); its name, for an `os.rename` into place."""
    temp = f".{name[:100]}.{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temp, flags, 0o666, dir_fd=parent_fd)
    try:
        _write_all(fd, data)
        if mode is not None:
            os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=parent_fd)
        raise
    os.close(fd)
    return temp


def replace_file(parent_fd: int, name: str, data: bytes, mode: int | None) -> None:
    temp = write_temp(parent_fd, name, data, mode)
    try:
        os.replace(temp, name, src_dir_fd=parent_fd, dst_dir_fd=parent_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=parent_fd)
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
