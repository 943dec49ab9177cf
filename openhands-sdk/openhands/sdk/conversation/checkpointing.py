"""Checkpoints of a `LocalConversation`'s workspace: take, list, diff, rewind.

A mixin, so the conversation module keeps to its run loop. The shadow repository lives in
the conversation's own folder (`<persistence_dir>/<id hex>/checkpoints/`), so deleting the
conversation deletes its snapshots and nothing is ever written into the workspace's own
`.git`. Each checkpoint and each rewind is recorded as a `ConversationStateUpdateEvent`
(`key="checkpoint"` / `key="rewind"`, value: the `Checkpoint` / `RewindResult` as JSON), so
the page and the command line see them as they happen and a log shows what was restored.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

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
    from openhands.sdk.conversation.state import ConversationState
    from openhands.sdk.event.base import Event
    from openhands.sdk.tool.tool import ToolDefinition
    from openhands.sdk.workspace.local import LocalWorkspace

CHECKPOINT_KEY = "checkpoint"
"""The `key` of the state-update event that records a checkpoint."""

REWIND_KEY = "rewind"
"""The `key` of the state-update event that records a rewind."""

CHECKPOINTS_FOLDER = "checkpoints"
"""The shadow repository's folder inside the conversation's folder."""


class Checkpointing:
    """The checkpoint part of `LocalConversation` (see the module docstring)."""

    # Provided by LocalConversation.
    _state: ConversationState
    _lock: threading.RLock
    tools: dict[str, ToolDefinition]

    def _emit(self, event: Event) -> Event:
        raise NotImplementedError

    def _check_open(self) -> None:
        raise NotImplementedError

    @property
    def workspace(self) -> LocalWorkspace:
        raise NotImplementedError

    @property
    def is_running(self) -> bool:
        raise NotImplementedError

    _checkpoint_store: CheckpointStore | None = None
    checkpoint_settings: CheckpointSettings | None = None
    """Limits of the checkpoints (None: `CheckpointSettings.from_env()`, read at first use)."""

    @property
    def checkpoint_store(self) -> CheckpointStore:
        """The conversation's checkpoint store; `CheckpointUnavailableError` when this
        conversation cannot keep one (it does not persist, or checkpoints are off)."""
        store = self._checkpoint_store
        if store is not None:
            return store
        settings = self.checkpoint_settings or CheckpointSettings.from_env()
        if not settings.enabled:
            raise CheckpointUnavailableError(
                "Checkpoints are switched off (OH_CHECKPOINTS=0 or checkpoint_settings)."
            )
        folder = self._state.folder
        if folder is None:
            raise CheckpointUnavailableError(
                "Checkpoints need a conversation that persists: create it with "
                "persistence_dir=... (the snapshots are kept in its folder)."
            )
        store = CheckpointStore(
            Path(folder) / CHECKPOINTS_FOLDER,
            Path(self.workspace.working_dir),
            settings,
            exclude=(Path(folder).parent,),
        )
        self._checkpoint_store = store
        return store

    def checkpoint(self, label: str, *, goal_round: int | None = None) -> Checkpoint:
        """Snapshot the workspace now and record it (a `key="checkpoint"` event).

        `goal_round` marks the goal round it ends (0 for a goal's start). Raises
        `CheckpointUnavailableError` or another `CheckpointError` when no snapshot is taken.
        The tools' processes (the agent's background jobs) are held still meanwhile: none can
        swap a folder for a link to a secret while git reads the workspace.
        """
        self._check_open()
        store = self.checkpoint_store
        with frozen(self._tool_processes()):
            checkpoint = store.snapshot(label, goal_round=goal_round)
        value = checkpoint.model_dump(mode="json")
        self._emit(ConversationStateUpdateEvent(key=CHECKPOINT_KEY, value=value))
        return checkpoint

    def _tool_processes(self) -> list[int]:
        return [pid for tool in self.tools.values() for pid in tool.process_ids()]

    def list_checkpoints(self) -> list[Checkpoint]:
        """The workspace's checkpoints, oldest first ([] when none was taken)."""
        try:
            store = self.checkpoint_store
        except CheckpointUnavailableError:
            return []
        return store.list()

    def checkpoint_diff(self, target: str, base: str | None = None) -> CheckpointDiff:
        """The changes from `base` (default: the checkpoint before `target`) to `target`."""
        return self.checkpoint_store.diff(target, base)

    def rewind(self, checkpoint_id: str) -> RewindResult:
        """Restore the workspace to checkpoint `checkpoint_id` and record it (a
        `key="rewind"` event). The workspace is snapshot first, so a rewind can itself be
        undone (rewind to `result.before`). Refused while the agent runs. The processes the
        tools keep running (the terminal's background jobs) are held still meanwhile, so
        nothing changes the workspace while it is recorded and restored.
        """
        self._check_open()
        with self._lock:
            if self.is_running:
                raise ConversationAlreadyRunningError(
                    "The agent is running: pause it (and stop its goal) before rewinding."
                )
            with frozen(self._tool_processes()):
                result = self.checkpoint_store.rewind(checkpoint_id)
            value = result.model_dump(mode="json")
            self._emit(ConversationStateUpdateEvent(key=REWIND_KEY, value=value))
        return result


__all__ = ["CHECKPOINTS_FOLDER", "CHECKPOINT_KEY", "REWIND_KEY", "Checkpointing"]
