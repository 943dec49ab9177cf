"""`Checkpointing` alone, behind a `ConversationCore`: where the store can be kept, and no
rewind during a run."""

from __future__ import annotations

from pathlib import Path

import pytest
from core_for_tests import MakeCore
from openhands.sdk.conversation.checkpointing import CHECKPOINT_KEY, Checkpointing
from openhands.sdk.conversation.errors import ConversationAlreadyRunningError
from openhands.sdk.event.state import ConversationStateUpdateEvent
from openhands.sdk.workspace.checkpoints import CheckpointSettings, CheckpointUnavailableError


def test_a_state_in_memory_keeps_no_checkpoints(make_core: MakeCore) -> None:
    checkpoints = Checkpointing(make_core())

    assert checkpoints.list_all() == []
    with pytest.raises(CheckpointUnavailableError, match="persistence_dir"):
        checkpoints.checkpoint("start")


def test_settings_that_switch_checkpoints_off_are_obeyed(make_core: MakeCore) -> None:
    checkpoints = Checkpointing(make_core(persist=True))
    checkpoints.settings = CheckpointSettings(enabled=False)

    with pytest.raises(CheckpointUnavailableError, match="switched off"):
        checkpoints.checkpoint("start")


def test_a_checkpoint_is_recorded_and_no_rewind_runs_during_a_run(
    make_core: MakeCore, workspace_dir: Path
) -> None:
    core = make_core(persist=True)
    checkpoints = Checkpointing(core)
    (workspace_dir / "notes.txt").write_text("first\n")
    taken = checkpoints.checkpoint("start")
    (workspace_dir / "notes.txt").write_text("second\n")
    core.is_running = True

    with pytest.raises(ConversationAlreadyRunningError, match="pause it"):
        checkpoints.rewind(taken.id)

    assert (workspace_dir / "notes.txt").read_text() == "second\n"
    recorded = [
        e
        for e in core.state.events
        if isinstance(e, ConversationStateUpdateEvent) and e.key == CHECKPOINT_KEY
    ]
    assert [e.value["id"] for e in recorded] == [taken.id]
