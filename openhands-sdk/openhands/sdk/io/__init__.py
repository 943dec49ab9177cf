"""Durable file helpers shared by every layer: atomic replace, folder fsync, append handles,
private files and folders."""

from openhands.sdk.io.atomic import fsync_dir, remove_leftover_temp_files, write_atomic
from openhands.sdk.io.handles import (
    MAX_OPEN_FILES_ENV,
    AppendHandles,
    append_handles,
    set_max_open_files,
)
from openhands.sdk.io.private import (
    PRIVATE_DIR_MODE,
    PRIVATE_FILE_MODE,
    make_private,
    make_private_dir,
)

__all__ = [
    "MAX_OPEN_FILES_ENV",
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "AppendHandles",
    "append_handles",
    "fsync_dir",
    "make_private",
    "make_private_dir",
    "remove_leftover_temp_files",
    "set_max_open_files",
    "write_atomic",
]
