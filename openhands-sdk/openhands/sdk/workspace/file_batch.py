"""Several file changes made for the agent as one: every one lands, or none does.

Each new content is first written to a temp file beside its target (in the folder the walk
checked, by descriptor); then the originals are moved aside and the new files renamed into
place; a failure on the way puts every original back. Used by `apply_patch`, whose patch may
touch many files. Every path goes through `AgentFiles`, with its checks.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from openhands.sdk.workspace.agent_files import AgentFiles
from openhands.sdk.workspace.file_errors import (
    AgentFileError,
    MissingPathError,
    NotARegularFileError,
)
from openhands.sdk.workspace.file_io import write_temp

__all__ = ["apply_changes"]


@dataclass
class _Staged:
    parent_fd: int
    name: str
    temp: str | None
    existed: bool
    aside: str | None = None
    placed: bool = False


def apply_changes(files: AgentFiles, changes: Sequence[tuple[str | Path, bytes | None]]) -> None:
    """Write each `(path, content)` (`None` removes the file), all or none (module docs).

    Raises an `AgentFileError` (nothing changed) when a path is refused or a write fails.
    """
    staged: list[_Staged] = []
    try:
        for path, data in changes:
            staged.append(_stage(files, path, data))
        for item in staged:
            if item.existed:
                item.aside = f".{item.name[:100]}.{secrets.token_hex(6)}.orig"
                os.rename(
                    item.name, item.aside, src_dir_fd=item.parent_fd, dst_dir_fd=item.parent_fd
                )
            if item.temp is not None:
                os.rename(
                    item.temp, item.name, src_dir_fd=item.parent_fd, dst_dir_fd=item.parent_fd
                )
                item.temp = None
                item.placed = True
    except BaseException as exc:
        _undo(staged)
        if isinstance(exc, OSError) and not isinstance(exc, AgentFileError):
            raise AgentFileError(f"cannot write the changes: {exc.strerror or exc}") from exc
        raise
    for item in staged:
        if item.aside is not None:
            with contextlib.suppress(OSError):
                os.unlink(item.aside, dir_fd=item.parent_fd)
        os.close(item.parent_fd)


def _stage(files: AgentFiles, path: str | Path, data: bytes | None) -> _Staged:
    shown = os.fspath(path)
    if data is not None:
        files.make_dirs(os.path.dirname(files.absolute(path)))
    with files.locate(path) as found:
        files.require_writable(found.parent, shown)
        node = found.node
        if found.name is None or (node is not None and node.is_dir):
            raise NotARegularFileError(f"{shown} is a folder", shown)
        if node is not None and (not stat.S_ISREG(node.mode) or node.kind != "rw"):
            if node.kind != "rw":
                raise files.not_writable(shown)
            raise NotARegularFileError(f"{shown} is not a regular file", shown)
        if data is None and node is None:
            raise MissingPathError(f"{shown} does not exist: nothing to delete", shown)
        parent_fd = os.dup(found.parent.fd)
        name = found.name
        mode = None if node is None else stat.S_IMODE(node.mode)
    try:
        temp = None if data is None else write_temp(parent_fd, name, data, mode)
    except BaseException:
        os.close(parent_fd)
        raise
    return _Staged(parent_fd=parent_fd, name=name, temp=temp, existed=node is not None)


def _undo(staged: list[_Staged]) -> None:
    for item in reversed(staged):
        with contextlib.suppress(OSError):
            if item.aside is not None:
                os.rename(
                    item.aside, item.name, src_dir_fd=item.parent_fd, dst_dir_fd=item.parent_fd
                )
            elif item.placed:
                os.unlink(item.name, dir_fd=item.parent_fd)
        if item.temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(item.temp, dir_fd=item.parent_fd)
        with contextlib.suppress(OSError):
            os.close(item.parent_fd)
