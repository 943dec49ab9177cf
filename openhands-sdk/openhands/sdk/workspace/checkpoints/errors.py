"""Errors of the checkpoint store; each message says what to do."""

from __future__ import annotations

from openhands.sdk.errors import OpenHandsError


class CheckpointError(OpenHandsError):
    """A snapshot, a diff or a rewind failed; the message says why and what to do."""


class CheckpointUnavailableError(CheckpointError):
    """Checkpoints cannot be taken here: git is missing, they are switched off, or the
    conversation does not persist (the shadow repository lives in its folder)."""


class CheckpointLimitError(CheckpointError, ValueError):
    """A snapshot would add more files than `max_files`: ignore build output and dependency
    folders in a .gitignore, or raise OH_CHECKPOINT_MAX_FILES."""


class UnknownCheckpointError(CheckpointError, LookupError):
    """No checkpoint has that id in this conversation's store."""


class WorkspaceChangingError(CheckpointError):
    """The workspace kept changing while it was recorded or restored (a process in it is
    still writing): stop that process (or wait for it), then retry."""


__all__ = [
    "CheckpointError",
    "CheckpointLimitError",
    "CheckpointUnavailableError",
    "UnknownCheckpointError",
    "WorkspaceChangingError",
]
