"""A conversation's workspace served as static files (GET /{id}/workspace[/{path}]): what the
agent wrote, as its sandbox shows it.

Every read goes through `AgentFiles` with the workspace as its floor: a path may not leave
the workspace (`..` above it, an absolute or escaping link: 400), hidden paths (the server's
own files, other workspaces) are answered as missing, and only regular files are served,
opened by descriptor and checked after opening. A folder serves its `index.html`.
"""

from __future__ import annotations

import contextlib
import mimetypes
import os
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass

from openhands.agent_server.errors import BadRequestError, ConflictError, NotFoundError
from openhands.sdk.workspace.agent_files import agent_files
from openhands.sdk.workspace.file_errors import (
    AgentFileError,
    HiddenPathError,
    MissingPathError,
    NotARegularFileError,
    PathChangedError,
)

CHUNK_BYTES = 64 * 1024


@dataclass
class ServedFile:
    """An opened workspace file: read it with `chunks()` (which closes it at the end)."""

    path: str
    size: int
    media_type: str
    _stack: contextlib.ExitStack
    _handle: object

    def chunks(self) -> Iterator[bytes]:
        """The file's bytes, a chunk at a time; the file is closed after the last one."""
        handle = self._handle
        try:
            while chunk := handle.read(CHUNK_BYTES):  # type: ignore[attr-defined]
                yield chunk
        finally:
            self._stack.close()

    def close(self) -> None:
        """Close the file without reading it."""
        self._stack.close()


def open_workspace_file(working_dir: str, file_path: str) -> ServedFile:
    """Open `file_path` (relative to the workspace; a folder: its index.html) for serving.

    NotFoundError for nothing there, a hidden path or a non-file; BadRequestError for a path
    that leaves the workspace; ConflictError when it changed while it was opened.
    """
    relative = file_path.strip("/") or "."  # "//etc/passwd" names workspace/etc/passwd
    files = agent_files(working_dir, floor=working_dir)
    stack = contextlib.ExitStack()
    try:
        if files.is_dir(relative):
            relative = posixpath.join(relative, "index.html")
            if not files.exists(relative):
                raise NotFoundError(f"No index.html in the workspace folder {file_path or '/'}.")
        handle = stack.enter_context(files.open_file(relative))
        size = os.fstat(handle.fileno()).st_size
    except (HiddenPathError, MissingPathError, NotARegularFileError) as exc:
        stack.close()
        raise NotFoundError(f"File not found in the workspace: {file_path or '/'}.") from exc
    except PathChangedError as exc:
        stack.close()
        raise ConflictError(str(exc)) from exc
    except AgentFileError as exc:
        stack.close()
        raise BadRequestError(f"Path is outside the workspace: {exc}") from exc
    except BaseException:
        stack.close()
        raise
    media_type = mimetypes.guess_type(relative)[0] or "application/octet-stream"
    return ServedFile(relative, size, media_type, stack, handle)
