"""How the server reads a workspace's or a plugin's own files: skills, memory, plugin
manifests, hooks and agent files (`read_text_beneath`), within `OH_MAX_EXTENSION_FILE_BYTES`."""

from __future__ import annotations

import os
from pathlib import Path

from openhands.sdk.errors import InvalidSettingError
from openhands.sdk.workspace.agent_files import agent_files

__all__ = [
    "DEFAULT_EXTENSION_FILE_LIMIT",
    "EXTENSION_FILE_LIMIT_ENV",
    "extension_file_limit",
    "read_text_beneath",
]

EXTENSION_FILE_LIMIT_ENV = "OH_MAX_EXTENSION_FILE_BYTES"
"""The largest skill, memory, plugin, hooks or agent file read from a workspace or plugin."""

DEFAULT_EXTENSION_FILE_LIMIT = 1_000_000


def extension_file_limit() -> int:
    """`OH_MAX_EXTENSION_FILE_BYTES` (default 1,000,000); `InvalidSettingError` when it is
    not a positive integer."""
    raw = os.environ.get(EXTENSION_FILE_LIMIT_ENV, "").strip()
    if not raw:
        return DEFAULT_EXTENSION_FILE_LIMIT
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0:
        raise InvalidSettingError(
            f"{EXTENSION_FILE_LIMIT_ENV}={raw!r}: give a positive number of bytes"
        )
    return value


def read_text_beneath(
    root: str | Path,
    path: str | Path,
    *,
    workspace: str | Path | None = None,
    limit: int | None = None,
) -> str:
    """The UTF-8 text of `path`, a regular file reached from the folder `root` without leaving
    it (a symlink may point elsewhere inside `root`, never out of it), as the sandbox of
    `workspace` (default: `root` itself) shows it; at most `limit` bytes (default:
    `OH_MAX_EXTENSION_FILE_BYTES`).

    How skills, memory, plugin manifests, hooks and agent files are read: a workspace or a
    cloned plugin may hold a link to the server's secrets or `/proc/self/environ`, a FIFO
    that would block a thread for good, or a link to `/dev/zero`. Raises an
    `AgentFileError` (an `OSError`) for each, `UnicodeDecodeError` for text that is not
    UTF-8.
    """
    floor = os.path.abspath(os.fspath(root))
    files = agent_files(workspace if workspace is not None else floor, floor=floor)
    return files.read_text(path, limit=limit if limit is not None else extension_file_limit())
