"""What a file operation made on the agent's behalf can refuse (`agent_files.AgentFiles`).

AgentFileError                 (OSError) the operation was refused or failed; nothing changed
├── HiddenPathError            (PermissionError) the agent's sandbox hides the path
├── NotWritableError           (PermissionError) outside the folders the agent may write
├── MissingPathError           (FileNotFoundError) nothing at that path
├── NotARegularFileError       a folder, FIFO, socket or device where a file was needed
├── FileTooLargeError          larger than the caller's limit
└── PathChangedError           the path changed while it was being opened (a racing writer)
"""

from __future__ import annotations

from openhands.sdk.errors import OpenHandsError

__all__ = [
    "AgentFileError",
    "FileTooLargeError",
    "HiddenPathError",
    "MissingPathError",
    "NotARegularFileError",
    "NotWritableError",
    "PathChangedError",
]


class AgentFileError(OpenHandsError, OSError):
    """A file operation made on the agent's behalf was refused; the message says why and
    what the agent can do instead. Nothing was changed."""

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def __str__(self) -> str:
        # OSError would print "[Errno N] ..." instead of the message that names the fix.
        return self.message


class HiddenPathError(AgentFileError, PermissionError):
    """The path belongs to the server (its conversations, its key, its settings) or to
    another conversation's workspace: the agent's sandbox does not show it."""


class NotWritableError(AgentFileError, PermissionError):
    """The path lies outside the folders the agent may write (its workspace and the
    configured writable folders)."""


class MissingPathError(AgentFileError, FileNotFoundError):
    """Nothing exists at the path (or a folder on the way is missing)."""


class NotARegularFileError(AgentFileError):
    """A folder, FIFO, socket or device where a regular file was needed (opening a FIFO
    would block, a device may never end)."""


class FileTooLargeError(AgentFileError):
    """The file is larger than the limit the caller set."""


class PathChangedError(AgentFileError):
    """The path was replaced while it was being opened: something else is changing the
    workspace at the same time. Retrying later is safe."""
