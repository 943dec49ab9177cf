"""The public reopen API: list stored conversations and summarize them without their history."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from openhands.sdk import ConversationExecutionStatus, ConversationStateUpdateEvent
from openhands.sdk.conversation import (
    ConversationStateError,
    ConversationSummary,
    list_conversation_ids,
    load_conversation_summary,
)
from openhands.sdk.conversation.event_log import EVENTS_FILE
from pydantic import SecretStr

Status = ConversationExecutionStatus
GOAL = {"active": True, "status": "running", "iteration": 1, "max_iterations": 3}


def test_listing_returns_the_ids_of_stored_conversations(make_conversation, persistence_dir):
    first, _ = make_conversation()
    second, _ = make_conversation()
    (persistence_dir / ".hidden").mkdir()
    (persistence_dir / "not-a-conversation").mkdir()
    (persistence_dir / uuid.uuid4().hex).write_text("a file, not a folder")

    ids = list_conversation_ids(persistence_dir)

    assert ids == sorted([first.id, second.id], key=lambda cid: cid.hex)


def test_listing_a_missing_folder_is_empty(tmp_path: Path) -> None:
    assert list_conversation_ids(tmp_path / "missing") == []


def test_a_summary_shows_what_a_listing_needs(make_conversation, reply, persistence_dir):
    conversation, llm = make_conversation([reply.finish()])
    llm.api_key = SecretStr("sk-never-on-disk")
    conversation.send_message("Summarize me please")
    conversation.run()
    conversation.close()

    summary = load_conversation_summary(persistence_dir, conversation.id)

    assert isinstance(summary, ConversationSummary)
    assert summary.id == conversation.id
    assert summary.title == "Summarize me please"
    assert summary.execution_status == Status.FINISHED
    assert summary.created_at == conversation.state.created_at
    assert summary.updated_at == conversation.state.events[-1].timestamp
    assert summary.workspace == conversation.workspace
    assert summary.agent.llm.api_key is None
    assert summary.goal is None
    assert summary.persistence_dir == str(persistence_dir / conversation.id.hex)


def test_a_summary_carries_the_latest_goal_status(make_conversation, persistence_dir) -> None:
    conversation, _ = make_conversation()
    conversation.append_event(ConversationStateUpdateEvent(key="goal", value={"status": "old"}))
    conversation.append_event(ConversationStateUpdateEvent(key="goal", value=GOAL))
    conversation.close()

    summary = load_conversation_summary(persistence_dir, conversation.id)

    assert summary is not None and summary.goal == GOAL


def test_a_summary_after_a_crash_reads_the_log_written_since_the_snapshot(
    make_conversation, reply, crash_mid_run
) -> None:
    conversation, _ = make_conversation([reply.call("gated"), reply.finish()], tools=["gated"])
    conversation.append_event(ConversationStateUpdateEvent(key="goal", value=GOAL))
    conversation.send_message("go")
    crashed = crash_mid_run(conversation)

    summary = load_conversation_summary(crashed, conversation.id)

    assert summary is not None
    assert summary.execution_status == Status.RUNNING  # its process died mid-run
    assert summary.goal == GOAL


def test_a_summary_does_not_parse_the_history(make_conversation, reply, persistence_dir):
    conversation, _ = make_conversation([reply.finish()])
    conversation.send_message("go")
    conversation.run()
    conversation.close()
    events_file = persistence_dir / conversation.id.hex / EVENTS_FILE
    size = events_file.stat().st_size
    events_file.write_bytes(b"\0" * (size - 1) + b"\n")  # unreadable; the snapshot covers it

    summary = load_conversation_summary(persistence_dir, conversation.id)

    assert summary is not None and summary.execution_status == Status.FINISHED


def test_a_conversation_never_created_has_no_summary(persistence_dir: Path) -> None:
    (persistence_dir / (empty := uuid.uuid4()).hex).mkdir()

    assert load_conversation_summary(persistence_dir, uuid.uuid4()) is None
    assert load_conversation_summary(persistence_dir, empty) is None


def test_events_without_a_base_state_are_a_clear_error(make_conversation, persistence_dir):
    conversation, _ = make_conversation()
    conversation.close()
    (persistence_dir / conversation.id.hex / "base_state.json").unlink()

    with pytest.raises(ConversationStateError, match=r"base_state\.json is missing"):
        load_conversation_summary(persistence_dir, conversation.id)


def test_a_damaged_base_state_is_a_clear_error(make_conversation, persistence_dir) -> None:
    conversation, _ = make_conversation()
    conversation.close()
    (persistence_dir / conversation.id.hex / "base_state.json").write_text('{"id": 3}')

    with pytest.raises(ConversationStateError, match="remove that folder"):
        load_conversation_summary(persistence_dir, conversation.id)
