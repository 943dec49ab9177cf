"""Checkpoints of a `LocalConversation`: each one and each rewind is an event, the store lives
in the conversation's folder, and a conversation that cannot keep one says why."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from openhands.sdk import LocalConversation
from openhands.sdk.conversation import ConversationAlreadyRunningError
from openhands.sdk.conversation.checkpointing import CHECKPOINT_KEY, REWIND_KEY
from openhands.sdk.event import ConversationStateUpdateEvent
from openhands.sdk.workspace.checkpoints import Checkpoint, CheckpointUnavailableError


def _updates(conversation: LocalConversation, key: str) -> list[ConversationStateUpdateEvent]:
    return [
        event
        for event in conversation.state.events
        if isinstance(event, ConversationStateUpdateEvent) and event.key == key
    ]


def test_a_checkpoint_is_recorded_as_an_event(make_conversation, workspace_dir: Path) -> None:
    conversation, _ = make_conversation()
    (workspace_dir / "a.txt").write_text("a\n")

    checkpoint = conversation.checkpoint("goal start", goal_round=0)

    [event] = _updates(conversation, CHECKPOINT_KEY)
    assert Checkpoint.model_validate(event.value) == checkpoint
    assert [c.path for c in checkpoint.changes] == ["a.txt"]
    assert conversation.list_checkpoints() == [checkpoint]


def test_the_store_lives_in_the_conversations_folder(make_conversation) -> None:
    conversation, _ = make_conversation()
    conversation.checkpoint("start")

    folder = conversation.state.folder
    assert folder is not None
    assert conversation.checkpoint_store.git_dir == Path(folder) / "checkpoints"
    assert (Path(folder) / "checkpoints" / "HEAD").is_file()


def test_the_conversations_folder_inside_the_workspace_is_not_snapshot(
    make_conversation, workspace_dir: Path
) -> None:
    store = workspace_dir / ".openhands" / "conversations"
    conversation, _ = make_conversation(persistence_dir=store)
    (workspace_dir / "main.py").write_text("pass\n")
    conversation.send_message("hello")  # writes events.jsonl under the workspace

    checkpoint = conversation.checkpoint("start")

    assert [c.path for c in checkpoint.changes] == ["main.py"]


def test_rewind_restores_the_files_and_is_recorded(make_conversation, workspace_dir: Path) -> None:
    conversation, _ = make_conversation()
    (workspace_dir / "app.py").write_text("good\n")
    good = conversation.checkpoint("round 1", goal_round=1)
    (workspace_dir / "app.py").write_text("bad\n")
    conversation.checkpoint("round 2", goal_round=2)

    result = conversation.rewind(good.id[:10])

    assert (workspace_dir / "app.py").read_text() == "good\n"
    [event] = _updates(conversation, REWIND_KEY)
    assert event.value["checkpoint"] == good.id
    assert event.value["restored"] == ["app.py"]
    assert result.label == "round 1"


def test_checkpoints_survive_reopening_the_conversation(
    make_conversation, persistence_dir: Path, workspace_dir: Path
) -> None:
    conversation, _ = make_conversation()
    (workspace_dir / "a.txt").write_text("a\n")
    first = conversation.checkpoint("goal start", goal_round=0)
    conversation.close()

    reopened = LocalConversation(
        None, workspace_dir, persistence_dir=persistence_dir, conversation_id=conversation.id
    )
    try:
        (workspace_dir / "a.txt").write_text("b\n")
        second = reopened.checkpoint("round 1", goal_round=1)
        assert [c.id for c in reopened.list_checkpoints()] == [first.id, second.id]
        assert second.parent == first.id
    finally:
        reopened.close()


def test_a_conversation_without_persistence_cannot_keep_checkpoints(make_conversation) -> None:
    conversation, _ = make_conversation(persist=False)

    with pytest.raises(CheckpointUnavailableError, match="persistence_dir"):
        conversation.checkpoint("start")
    assert conversation.list_checkpoints() == []


def test_checkpoints_switched_off_say_how(
    make_conversation, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OH_CHECKPOINTS", "0")
    conversation, _ = make_conversation()

    with pytest.raises(CheckpointUnavailableError, match="OH_CHECKPOINTS"):
        conversation.checkpoint("start")


def test_rewind_is_refused_while_the_agent_runs(make_conversation, reply, gate) -> None:
    conversation, _ = make_conversation(
        [reply.call("gated", {"label": "x"}), reply.text("done")], tools=["gated"]
    )
    start = conversation.checkpoint("start")
    conversation.send_message("go")
    runner = threading.Thread(target=conversation.run)
    runner.start()
    assert gate.started.wait(30), "the tool call never started"
    try:
        with pytest.raises(ConversationAlreadyRunningError, match="pause"):
            conversation.rewind(start.id)
    finally:
        gate.release.set()
        runner.join(30)
