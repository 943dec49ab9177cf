"""Checkpoints of a `LocalConversation`'s workspace: take, list, diff, rewind.

A collaborator the conversation owns (see `conversation.core`). The shadow repository lives in
the conversation's own folder (`<persistence_dir>/<id hex>/checkpoints/`), so deleting the
conversation deletes its snapshots and nothing is ever written into the workspace's own
`.git`. Each checkpoint and each rewind is recorded as a `ConversationStateUpdateEvent`
(`key="checkpoint"` / `key="rewind"`, value: the `Checkpoint` / `RewindResult` as JSON), so
the page and the command line see them as they happen and a log shows what was restored.
The processes the tools keep running are held still while a snapshot is taken and while a
rewind records and restores the workspace (`workspace.freeze`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from openhands.sdk.conversation.core import require_open
from openhands.sdk.conversation.errors import ConversationAlreadyRunningError
from openhands.sdk.event.state import ConversationStateUpdateEvent
from openhands.sdk.workspace.checkpoints import (
    Checkpoint,
    CheckpointDiff,
    CheckpointSettings,
    CheckpointStore,
    CheckpointUnavailableError,
    RewindResult,
)
from openhands.sdk.workspace.freeze import frozen

if TYPE_CHECKING:
    from openhands.sdk.conversation.core import ConversationCore

CHECKPOINT_KEY = "checkpoint"
"""The `key` of the state-update event that records a checkpoint."""

REWIND_KEY = "rewind"
"""The `key` of the state-update event that records a rewind."""

CHECKPOINTS_FOLDER = "checkpoints"
"""The shadow repository's folder inside the conversation's folder."""


class Checkpointing:
    """A conversation's workspace snapshots (see the module docstring)."""

    def __init__(self, core: ConversationCore) -> None:
        self._core = core
        self._store: CheckpointStore | None = None
        self.settings: CheckpointSettings | None = None
        """Limits of the checkpoints (None: `CheckpointSettings.from_env()`, read at first
        use)."""

    @property
    def store(self) -> CheckpointStore:
        """The conversation's checkpoint store; `CheckpointUnavailableError` when this
        conversation cannot keep one (it does not persist, or checkpoints are off)."""
        store = self._store
        if store is not None:
            return store
        settings = self.settings or CheckpointSettings.from_env()
        if not settings.enabled:
            raise CheckpointUnavailableError(
                "Checkpoints are switched off (OH_CHECKPOINTS=0 or checkpoint_settings)."
            )
        state = self._core.state
        folder = state.folder
        if folder is None:
            raise CheckpointUnavailableError(
                "Checkpoints need a conversation that persists: create it with "
                "persistence_dir=... (the snapshots are kept in its folder)."
            )
        store = CheckpointStore(
            Path(folder) / CHECKPOINTS_FOLDER,
            Path(state.workspace.working_dir),
            settings,
            exclude=(Path(folder).parent,),
        )
        self._store = store
        return store

    def checkpoint(self, label: str, *, goal_round: int | None = None) -> Checkpoint:
        """Snapshot the workspace now and record it (a `key="checkpoint"` event).

        `goal_round` marks the goal round it ends (0 for a goal's start). Raises
        `CheckpointUnavailableError` or another `CheckpointError` when no snapshot is taken.
        The tools' processes (the agent's background jobs) are held still meanwhile: none can
        swap a folder for a link to a secret while git reads the workspace.
        """
        require_open(self._core)
        store = self.store
        with frozen(self._tool_processes()):
            checkpoint = store.snapshot(label, goal_round=goal_round)
        value = checkpoint.model_dump(mode="json")
        self._core.emit(ConversationStateUpdateEvent(key=CHECKPOINT_KEY, value=value))
        return checkpoint

    def list_all(self) -> list[Checkpoint]:
        """The workspace's checkpoints, oldest first ([] when none was taken)."""
        try:
            store = self.store
        except CheckpointUnavailableError:
            return []
        return store.list()

    def diff(self, target: str, base: str | None = None) -> CheckpointDiff:
        """The changes from `base` (default: the checkpoint before `target`) to `target`."""
        return self.store.diff(target, base)

    def rewind(self, checkpoint_id: str) -> RewindResult:
        """Restore the workspace to checkpoint `checkpoint_id` and record it (a
        `key="rewind"` event). The workspace is snapshot first, so a rewind can itself be
        undone (rewind to `result.before`). Refused while the agent runs. The processes the
        tools keep running (the terminal's background jobs) are held still meanwhile, so
        nothing changes the workspace while it is recorded and restored.
        """
        require_open(self._core)
        with self._core.state.lock:
            if self._core.is_running:
                raise ConversationAlreadyRunningError(
                    "The agent is running: pause it (and stop its goal) before rewinding."
                )
            with frozen(self._tool_processes()):
                result = self.store.rewind(checkpoint_id)
            value = result.model_dump(mode="json")
            self._core.emit(ConversationStateUpdateEvent(key=REWIND_KEY, value=value))
        return result

    def _tool_processes(self) -> list[int]:
        return [pid for tool in self._core.tools.values() for pid in tool.process_ids()]


__all__ = ["CHECKPOINTS_FOLDER", "CHECKPOINT_KEY", "REWIND_KEY", "Checkpointing"]
