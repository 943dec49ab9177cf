"""Checkpoints: snapshots of a workspace in a shadow git repository, diffs and rewind.

`CheckpointStore(git_dir, work_tree)` takes snapshots (`snapshot(label)`), lists them, diffs
any two and rewinds the workspace to one; a `LocalConversation` keeps its store in its own
folder (`conversation.checkpoint(...)`, `conversation.rewind(...)`). See docs/checkpoints.md.
"""

from openhands.sdk.workspace.checkpoints.errors import (
    CheckpointError,
    CheckpointLimitError,
    CheckpointUnavailableError,
    UnknownCheckpointError,
    WorkspaceChangingError,
)
from openhands.sdk.workspace.checkpoints.models import (
    Checkpoint,
    CheckpointDiff,
    CheckpointSettings,
    FileChange,
    RewindResult,
)
from openhands.sdk.workspace.checkpoints.store import CheckpointStore

__all__ = [
    "Checkpoint",
    "CheckpointDiff",
    "CheckpointError",
    "CheckpointLimitError",
    "CheckpointSettings",
    "CheckpointStore",
    "CheckpointUnavailableError",
    "FileChange",
    "RewindResult",
    "UnknownCheckpointError",
    "WorkspaceChangingError",
]
