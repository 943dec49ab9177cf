"""The file routes' reads and writes: every one through `agent_files`, with the sandbox's view.

An upload, a download, a new folder, a folder listing act on a `Scope` (a conversation's
working directory, or the folder a server-wide request names) exactly as the agent of that
workspace could: hidden paths are invisible (403), writes land only in the workspace and the
writable folders (403 elsewhere), paths are walked by descriptor (no symlink or `..` race).
The errors of `agent_files` become the reference's statuses: missing 404, not a file or not a
folder 400, changed meanwhile 409.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from openhands.agent_server.errors import (
    BadRequestError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    ServerError,
)
from openhands.agent_server.services.scopes import Scope
from openhands.sdk.wire.files import FileBrowserEntry, SubdirectoryEntry, SubdirectoryPage
from openhands.sdk.workspace.agent_files import AgentFiles, agent_files
from openhands.sdk.workspace.file_errors import (
    AgentFileError,
    FileTooLargeError,
    HiddenPathError,
    MissingPathError,
    NotARegularFileError,
    NotWritableError,
    PathChangedError,
)

CHUNK = 64 * 1024
MAX_FAVORITES = 50


class UploadTooLargeError(ServerError):
    """An upload larger than the limit (OH_MAX_BODY_BYTES)."""

    status_code = 413


def refusal(exc: OSError, field: str = "path") -> ServerError:
    """The HTTP answer for a refused file operation."""
    message = f"{field}: {exc}"
    if isinstance(exc, HiddenPathError | NotWritableError):
        return ForbiddenError(message)
    if isinstance(exc, MissingPathError | FileNotFoundError):
        return NotFoundError(message)
    if isinstance(exc, PathChangedError):
        return ConflictError(message)
    if isinstance(exc, FileTooLargeError):
        return UploadTooLargeError(message)
    if isinstance(exc, NotARegularFileError | FileExistsError | AgentFileError):
        return BadRequestError(message)
    return BadRequestError(f"{field}: {getattr(exc, 'strerror', None) or exc}")


def upload(scope: Scope, path: Path, source: BinaryIO, limit: int) -> int:
    """Write `source` to `path` (its folders made as needed); the bytes written."""
    data = source.read(limit + 1) if limit > 0 else source.read()
    if limit > 0 and len(data) > limit:
        raise UploadTooLargeError(f"file: larger than {limit} bytes (OH_MAX_BODY_BYTES)")
    files = agent_files(scope.workspace)
    try:
        files.write_bytes(path, data, parents=True)
    except (OSError, ValueError) as exc:
        raise refusal(exc if isinstance(exc, OSError) else OSError(str(exc))) from None
    return len(data)


class OpenedFile:
    """A file opened for download: its size and its bytes, read in chunks, then closed."""

    def __init__(self, files: AgentFiles, path: Path) -> None:
        self._context = files.open_file(path)
        self._handle = self._context.__enter__()  # closed by `chunks` (or `close`)
        self.size = os.fstat(self._handle.fileno()).st_size
        self.name = path.name

    def chunks(self) -> Iterator[bytes]:
        """The file's bytes; closes it at the end (or when the client goes away)."""
        try:
            while chunk := self._handle.read(CHUNK):
                yield chunk
        finally:
            self.close()

    def close(self) -> None:
        """Close the file (once)."""
        with contextlib.suppress(Exception):
            self._context.__exit__(None, None, None)


def open_download(scope: Scope, path: Path) -> OpenedFile:
    """The regular file at `path`, opened as the agent could open it."""
    try:
        return OpenedFile(agent_files(scope.workspace), path)
    except OSError as exc:
        raise refusal(exc) from None


def make_directory(scope: Scope, path: Path, field: str = "path") -> None:
    """Create the folder and its missing parents; nothing when it exists."""
    try:
        agent_files(scope.workspace).make_dirs(path)
    except OSError as exc:
        raise refusal(exc, field) from None


def subdirectories(
    scope: Scope, path: Path, *, page_id: str | None, limit: int, include_hidden: bool
) -> SubdirectoryPage:
    """One page of the folders directly in `path` (links left out), by name, ignoring case."""
    try:
        entries = agent_files(scope.workspace).list_dir(path)
    except NotARegularFileError:
        raise BadRequestError(f"path: {path} is not a folder") from None
    except OSError as exc:
        raise refusal(exc) from None
    names = sorted(
        (
            e.name
            for e in entries
            if e.kind == "dir" and (include_hidden or not e.name.startswith("."))
        ),
        key=lambda name: (name.lower(), name),
    )
    start = 0
    if page_id:
        if page_id in names:
            start = names.index(page_id)
        else:
            start = next((i for i, name in enumerate(names) if name.lower() == page_id), len(names))
    page = names[start : start + limit]
    following = names[start + limit] if start + limit < len(names) else None
    return SubdirectoryPage(
        items=[SubdirectoryEntry(name=name, path=str(path / name)) for name in page],
        next_page_id=following,
    )


def favorites(scope: Scope, home: Path, include_hidden: bool) -> list[FileBrowserEntry]:
    """The folders directly in `home` (links left out), by name; [] when it cannot be read."""
    try:
        page = subdirectories(
            scope, home, page_id=None, limit=MAX_FAVORITES, include_hidden=include_hidden
        )
    except ServerError:
        return []
    return [FileBrowserEntry(label=item.name, path=item.path) for item in page.items]
