"""Persisted conversations: base_state.json + events.jsonl, reopened by id."""

from __future__ import annotations

import json
import logging
import os
import uuid

import pytest
from openhands.sdk import (
    Agent,
    ConversationExecutionStatus,
    LocalConversation,
    MessageEvent,
    SystemPromptEvent,
)
from openhands.sdk.conversation import ConversationState, ConversationStateError
from openhands.sdk.conversation.event_log import EventLogCorruptError
from openhands.sdk.conversation.recording import RUN_LOST
from openhands.sdk.errors import StorageError
from openhands.sdk.event import ConversationErrorEvent, ConversationStateUpdateEvent, Event
from openhands.sdk.llm import Metrics
from openhands.sdk.testing import TestLLM
from openhands.sdk.tool import Tool, UnknownToolError
from openhands.sdk.workspace import LocalWorkspace
from pydantic import SecretStr

Status = ConversationExecutionStatus
SECRET = "sk-live-do-not-leak-8b1f2c"


def _files(conversation: LocalConversation):
    folder = conversation.state.folder
    assert folder is not None
    return folder / "base_state.json", folder / "events.jsonl"


def test_files_live_under_the_conversation_id(make_conversation, persistence_dir) -> None:
    conversation, _ = make_conversation()

    assert conversation.state.folder == persistence_dir / conversation.id.hex
    base_state, events = _files(conversation)
    assert base_state.is_file()
    assert events.is_file()


def test_delete_on_close_is_accepted_and_a_local_close_keeps_what_was_stored(
    make_conversation,
) -> None:
    conversation, _ = make_conversation(delete_on_close=True)
    assert conversation.delete_on_close is True

    conversation.close()

    base_state, events = _files(conversation)
    assert base_state.is_file() and events.is_file()


def test_reopening_after_close_restores_state_and_events(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.think("plan"), reply.finish("done")])
    conversation.send_message("Write the report")
    conversation.run()
    before = list(conversation.state.events)
    conversation.close()

    reopened, _ = make_conversation(conversation_id=conversation.id)

    assert list(reopened.state.events) == before
    assert reopened.state.execution_status == Status.FINISHED
    assert reopened.state.title == "Write the report"
    assert reopened.state.created_at == conversation.state.created_at
    assert sum(isinstance(e, SystemPromptEvent) for e in reopened.state.events) == 1


def test_a_reopened_conversation_continues_with_its_history(make_conversation, reply) -> None:
    conversation, _ = make_conversation(
        [reply.call("think", {"thought": "t"}, call_id="c1"), reply.finish()]
    )
    conversation.send_message("first task")
    conversation.run()
    conversation.close()

    reopened, llm = make_conversation([reply.text("ok")], conversation_id=conversation.id)
    reopened.send_message("second task")
    reopened.run()

    texts = [message.text for message in llm.calls[0]]
    assert texts[1] == "first task"
    assert texts[-1] == "second task"
    assert any(message.tool_call_id == "c1" for message in llm.calls[0])


def test_every_event_is_one_json_line(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.think("a"), reply.finish()])
    conversation.send_message("go")
    conversation.run()

    _, events_file = _files(conversation)
    lines = events_file.read_text().splitlines()

    assert [Event.model_validate_json(line) for line in lines] == list(conversation.state.events)


def test_base_state_is_replaced_atomically_without_leftovers(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.think(f"t{i}") for i in range(3)] + [reply.finish()])
    conversation.send_message("go")
    conversation.run()
    conversation.pause()
    conversation.close()

    base_state, _ = _files(conversation)
    leftovers = sorted(p.name for p in base_state.parent.iterdir())
    assert leftovers == ["base_state.json", "events", "events.jsonl"]  # events/: per-event copy
    assert json.loads(base_state.read_text())["execution_status"] == "paused"


def test_secrets_never_reach_the_files(workspace_dir, persistence_dir) -> None:
    llm = TestLLM.from_messages([], api_key=SecretStr(SECRET))
    conversation = LocalConversation(Agent(llm=llm), workspace_dir, persistence_dir=persistence_dir)
    conversation.send_message("hello")
    conversation.close()

    base_state, events_file = _files(conversation)
    assert SECRET not in base_state.read_text()
    assert SECRET not in events_file.read_text()
    assert json.loads(base_state.read_text())["agent"]["llm"]["api_key"] is None
    assert llm.api_key is not None and llm.api_key.get_secret_value() == SECRET


def test_the_callers_agent_replaces_the_stored_one(
    make_conversation, workspace_dir, persistence_dir
) -> None:
    conversation, _ = make_conversation()
    conversation.close()
    live = TestLLM.from_messages([], api_key=SecretStr(SECRET))

    reopened = LocalConversation(
        Agent(llm=live),
        workspace_dir,
        persistence_dir=persistence_dir,
        conversation_id=conversation.id,
    )
    try:
        assert reopened.agent.llm is live
    finally:
        reopened.close()


def test_a_run_cut_off_by_a_crash_reopens_as_an_error_saying_so(
    make_conversation, reply, crash_mid_run
) -> None:
    conversation, _ = make_conversation([reply.call("gated"), reply.finish()], tools=["gated"])
    conversation.send_message("go")
    crashed = crash_mid_run(conversation)

    reopened, _ = make_conversation(persistence_dir=crashed, conversation_id=conversation.id)

    assert reopened.state.execution_status == Status.ERROR
    error, status = reopened.state.events[-2:]
    assert isinstance(error, ConversationErrorEvent)
    assert error.code == RUN_LOST
    assert "Send a message or run it again" in error.detail
    assert isinstance(status, ConversationStateUpdateEvent)
    assert status.value == "error"


def test_an_interrupted_conversation_continues_after_a_message(
    make_conversation, reply, crash_mid_run
) -> None:
    conversation, _ = make_conversation([reply.call("gated"), reply.finish()], tools=["gated"])
    conversation.send_message("go")
    crashed = crash_mid_run(conversation)
    reopened, _ = make_conversation(
        [reply.text("picked up")], persistence_dir=crashed, conversation_id=conversation.id
    )

    reopened.send_message("carry on")
    reopened.run()

    assert reopened.state.execution_status == Status.FINISHED
    assert sum(isinstance(e, ConversationErrorEvent) for e in reopened.state.events) == 1


def test_cost_survives_a_reopen(workspace_dir, persistence_dir, reply) -> None:
    llm = TestLLM.from_messages([reply.think("a"), reply.finish()], costs=[0.5, 0.25])
    conversation = LocalConversation(Agent(llm=llm), workspace_dir, persistence_dir=persistence_dir)
    conversation.send_message("go")
    conversation.run()
    conversation.close()

    fresh = TestLLM.from_messages([])
    reopened = LocalConversation(
        Agent(llm=fresh),
        workspace_dir,
        persistence_dir=persistence_dir,
        conversation_id=conversation.id,
    )
    reopened.close()

    assert fresh.metrics.accumulated_cost == 0.75
    assert fresh.metrics.completions == 2
    base_state, _ = _files(reopened)
    stored = json.loads(base_state.read_text())["stats"]["usage_to_metrics"]
    assert stored["default"]["accumulated_cost"] == 0.75


def test_metrics_of_other_usage_ids_are_kept(make_conversation) -> None:
    conversation, _ = make_conversation()
    conversation.state.metrics["goal-judge"] = Metrics(usage_id="goal-judge", accumulated_cost=0.1)

    conversation.send_message("hi")
    conversation.pause()  # a status change saves the state
    conversation.close()

    reopened, _ = make_conversation(conversation_id=conversation.id)
    assert reopened.state.metrics["goal-judge"].accumulated_cost == 0.1


def test_an_in_memory_conversation_writes_nothing(
    make_conversation, reply, persistence_dir
) -> None:
    conversation, _ = make_conversation([reply.finish()], persist=False)
    conversation.send_message("go")
    conversation.run()

    assert conversation.state.folder is None
    assert list(persistence_dir.iterdir()) == []
    assert isinstance(conversation.state.events[1], MessageEvent)


def test_a_torn_events_tail_is_tolerated_on_reopen(make_conversation, reply, caplog) -> None:
    conversation, _ = make_conversation([reply.finish()])
    conversation.send_message("go")
    conversation.run()
    conversation.close()
    _, events_file = _files(conversation)
    with open(events_file, "ab") as handle:
        handle.write(b'{"kind":"MessageEvent","id":"4f1c","timest')  # a crash mid-write

    with caplog.at_level(logging.WARNING):
        reopened, _ = make_conversation([reply.text("hi")], conversation_id=conversation.id)
    reopened.send_message("next")
    reopened.run()

    assert "torn last line" in caplog.text
    lines = events_file.read_text().splitlines()
    assert [Event.model_validate_json(line) for line in lines] == list(reopened.state.events)
    assert reopened.state.execution_status == Status.FINISHED


def test_a_corrupt_base_state_is_a_clear_error_naming_the_file(make_conversation) -> None:
    conversation, _ = make_conversation()
    conversation.close()
    base_state, _ = _files(conversation)
    base_state.write_text("{not json")

    with pytest.raises(ConversationStateError, match="remove that folder") as caught:
        make_conversation(conversation_id=conversation.id)

    assert str(base_state) in str(caught.value)


def test_a_wrongly_shaped_base_state_error_names_the_bad_fields(make_conversation) -> None:
    conversation, _ = make_conversation()
    conversation.close()
    base_state, _ = _files(conversation)
    base_state.write_text(json.dumps({"id": conversation.id.hex}))

    with pytest.raises(ConversationStateError, match="agent: Field required"):
        make_conversation(conversation_id=conversation.id)


# -- one durable write per event -----------------------------------------------------------------


def _inode(path) -> int:
    return os.stat(path).st_ino


def test_status_changes_do_not_rewrite_base_state(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.think("a"), reply.finish()])
    conversation.send_message("go")  # the title is configuration: saved once
    base_state, _ = _files(conversation)
    written = _inode(base_state)

    conversation.run()
    conversation.pause()

    assert _inode(base_state) == written  # running, finished, paused: events only


def test_a_configuration_change_rewrites_base_state(make_conversation) -> None:
    conversation, _ = make_conversation()
    base_state, _ = _files(conversation)
    created = _inode(base_state)

    conversation.send_message("Name the conversation after me")

    assert _inode(base_state) != created
    assert json.loads(base_state.read_text())["title"] == "Name the conversation after me"


def test_reopening_with_the_same_configuration_writes_nothing(make_conversation) -> None:
    conversation, _ = make_conversation(max_iteration_per_run=7)
    conversation.close()
    base_state, _ = _files(conversation)
    closed = _inode(base_state)

    reopened, _ = make_conversation(conversation_id=conversation.id)

    assert _inode(base_state) == closed
    assert reopened.state.max_iterations == 7  # kept: none was given


def test_reopening_with_another_limit_stores_it(make_conversation) -> None:
    conversation, _ = make_conversation(max_iteration_per_run=7)
    conversation.close()

    reopened, _ = make_conversation(conversation_id=conversation.id, max_iteration_per_run=9)
    reopened.close()

    base_state, _ = _files(reopened)
    assert json.loads(base_state.read_text())["max_iterations"] == 9


def test_the_status_after_a_crash_comes_from_the_log(make_conversation, reply, crash_copy) -> None:
    conversation, _ = make_conversation([reply.finish()])
    conversation.send_message("go")
    conversation.run()
    crashed = crash_copy(conversation)  # base_state.json still says idle

    reopened, _ = make_conversation(persistence_dir=crashed, conversation_id=conversation.id)

    assert reopened.state.execution_status == Status.FINISHED
    assert reopened.state.updated_at == conversation.state.events[-1].timestamp


def test_a_refused_base_state_write_keeps_the_previous_file(
    make_conversation, file_size_limit
) -> None:
    conversation, _ = make_conversation()
    conversation.close()
    base_state, _ = _files(conversation)
    before = base_state.read_text()

    with file_size_limit(100), pytest.raises(StorageError, match="base_state"):
        make_conversation(conversation_id=conversation.id, max_iteration_per_run=3)

    assert base_state.read_text() == before
    assert sorted(p.name for p in base_state.parent.iterdir()) == [
        "base_state.json",
        "events",  # the per-event copy
        "events.jsonl",
    ]


# -- reopening ----------------------------------------------------------------------------------


def test_state_persistence_dir_is_the_conversations_own_folder(
    make_conversation, persistence_dir
) -> None:
    conversation, _ = make_conversation()

    assert conversation.state.persistence_dir == str(persistence_dir / conversation.id.hex)


def test_reopening_without_an_agent_uses_the_stored_one(
    workspace_dir, persistence_dir, tmp_path, monkeypatch
) -> None:
    llm = TestLLM.from_messages([], model="test/stored-model", api_key=SecretStr(SECRET))
    conversation = LocalConversation(
        Agent(llm=llm), workspace_dir, persistence_dir=persistence_dir, max_iteration_per_run=12
    )
    conversation.close()

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the stored workspace wins over the current directory
    reopened = LocalConversation(
        None, persistence_dir=persistence_dir, conversation_id=conversation.id
    )
    reopened.close()

    assert reopened.agent.llm.model == "test/stored-model"
    assert reopened.agent.llm.api_key is None  # keys never reach disk
    assert reopened.workspace.working_dir == str(workspace_dir)
    assert reopened.state.max_iterations == 12


def test_a_new_conversation_needs_an_agent(persistence_dir) -> None:
    with pytest.raises(ValueError, match="needs an agent"):
        LocalConversation(None, persistence_dir=persistence_dir)


def test_conversation_state_create_opens_or_creates(workspace_dir, tmp_path) -> None:
    folder = tmp_path / "conversations" / "one"
    conversation_id = uuid.uuid4()
    created = ConversationState.create(
        conversation_id,
        Agent(llm=TestLLM.from_messages([])),
        LocalWorkspace(working_dir=workspace_dir),
        persistence_dir=folder,
        max_iterations=42,
    )
    created.close()

    resumed = ConversationState.create(conversation_id, None, persistence_dir=folder)
    resumed.close()

    assert (folder / "base_state.json").is_file()
    assert resumed.max_iterations == 42
    assert resumed.created_at == created.created_at


def test_a_failed_creation_leaves_no_folder(workspace_dir, persistence_dir) -> None:
    agent = Agent(llm=TestLLM.from_messages([]), tools=[Tool(name="no_such_tool")])

    with pytest.raises(UnknownToolError):
        LocalConversation(agent, workspace_dir, persistence_dir=persistence_dir)

    assert list(persistence_dir.iterdir()) == []


def test_opening_a_conversation_does_not_parse_its_events(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.think("a"), reply.finish()])
    conversation.send_message("go")
    conversation.run()
    conversation.close()
    _, events_file = _files(conversation)
    lines = events_file.read_bytes().split(b"\n")
    lines[1] = b'{"kind":"NoSuchEvent"}'
    events_file.write_bytes(b"\n".join(lines))

    reopened, _ = make_conversation(conversation_id=conversation.id)
    reopened.send_message("appending needs no history")

    assert reopened.state.execution_status == Status.IDLE
    with pytest.raises(EventLogCorruptError, match=r"events\.jsonl:2 "):
        len(reopened.state.events)
