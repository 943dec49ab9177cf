"""Durable file helpers shared by every layer: atomic replace, folder fsync, append handles."""

from openhands.sdk.io.atomic import fsync_dir, write_atomic
from openhands.sdk.io.handles import (
    MAX_OPEN_FILES_ENV,
    AppendHandles,
    append_handles,
    set_max_open_files,
)

__all__ = [
    "MAX_OPEN_FILES_ENV",
    "AppendHandles",
    "append_handles",
    "fsync_dir",
    "set_max_open_files",
    "write_atomic",
]
