"""`fork()`: a new conversation starting with a copy of the history (all of it, or a branch)."""

from __future__ import annotations

import uuid

import pytest
from openhands.sdk import (
    Agent,
    ConversationExecutionStatus,
    LocalConversation,
    MessageEvent,
)
from openhands.sdk.conversation import UnknownEventError, load_conversation_summary
from openhands.sdk.testing import TestLLM

Status = ConversationExecutionStatus


def _agent(*replies, usage_id: str = "fork") -> Agent:
    return Agent(llm=TestLLM.from_messages(list(replies), usage_id=usage_id))


def _user_messages(conversation: LocalConversation) -> list[str]:
    return [
        event.llm_message.text
        for event in conversation.state.events
        if isinstance(event, MessageEvent) and event.source == "user"
    ]


def _ran(make_conversation, reply, **kwargs) -> LocalConversation:
    conversation, _ = make_conversation([reply.text("first answer")], **kwargs)
    conversation.send_message("first question")
    conversation.run()
    return conversation


def test_a_fork_has_a_new_id_and_every_event_and_adds_none(make_conversation, reply) -> None:
    source = _ran(make_conversation, reply)
    before = [event.id for event in source.state.events]

    fork = source.fork(agent=_agent())
    try:
        assert fork.id != source.id
        assert [event.id for event in fork.state.events] == before
        assert [event.id for event in source.state.events] == before
        assert fork.state.execution_status == Status.IDLE
    finally:
        fork.close()


def test_running_a_fork_leaves_the_source_untouched(make_conversation, reply) -> None:
    source = _ran(make_conversation, reply)
    count = len(source.state.events)
    fork = source.fork(agent=_agent(reply.text("fork answer")))
    try:
        fork.send_message("second question")
        fork.run()

        assert len(source.state.events) == count
        assert len(fork.state.events) > count
        assert _user_messages(fork) == ["first question", "second question"]
    finally:
        fork.close()


def test_the_forked_agent_remembers_the_source_history(make_conversation, reply) -> None:
    source = _ran(make_conversation, reply)
    agent = _agent(reply.text("fork answer"))
    fork = source.fork(agent=agent)
    try:
        fork.send_message("second question")
        fork.run()

        assert isinstance(agent.llm, TestLLM)
        sent = [message.text for message in agent.llm.calls[0]]
        assert sent[-3:] == ["first question", "first answer", "second question"]
    finally:
        fork.close()


def test_a_fork_without_an_agent_gets_a_copy_with_its_own_metrics(make_conversation, reply) -> None:
    source = _ran(make_conversation, reply)

    fork = source.fork()
    try:
        assert fork.agent is not source.agent
        assert fork.agent.llm is not source.agent.llm
        assert type(fork.agent.llm) is type(source.agent.llm)
        assert fork.agent.llm.usage_id == source.agent.llm.usage_id
        assert fork.agent.llm.metrics is not source.agent.llm.metrics
        assert fork.agent.llm.metrics.completions == 0
        assert fork.agent.tools == source.agent.tools
    finally:
        fork.close()


def test_title_and_tags_go_to_the_fork(make_conversation, reply) -> None:
    source = _ran(make_conversation, reply)

    fork = source.fork(agent=_agent(), title="Follow-up fork", tags={"purpose": "a/b-test"})
    try:
        assert fork.state.tags == {"purpose": "a/b-test", "title": "Follow-up fork"}
        assert fork.state.title == "Follow-up fork"
        assert source.state.tags == {}
    finally:
        fork.close()


def test_bad_tags_are_refused_naming_the_tag(make_conversation, reply) -> None:
    source = _ran(make_conversation, reply)

    with pytest.raises(ValueError, match="Purpose"):
        source.fork(agent=_agent(), tags={"Purpose": "x"})


def test_usage_starts_fresh_unless_asked_to_keep_it(make_conversation, reply) -> None:
    source = _ran(make_conversation, reply)
    usage_id = source.agent.llm.usage_id

    fresh = source.fork()
    kept = source.fork(reset_metrics=False)
    try:
        assert usage_id not in fresh.conversation_stats.usage_to_metrics or (
            fresh.conversation_stats.get_metrics_for_usage(usage_id).completions == 0
        )
        assert kept.conversation_stats.get_metrics_for_usage(usage_id).completions == 1
        assert kept.agent.llm.metrics.completions == 1  # the copy counts on from there
    finally:
        fresh.close()
        kept.close()


def test_a_fork_from_an_event_copies_only_its_branch_and_continues_there(
    make_conversation, reply
) -> None:
    source = _ran(make_conversation, reply)
    cut = next(
        event.id
        for event in source.state.events
        if isinstance(event, MessageEvent) and event.source == "user"
    )
    agent = _agent(reply.text("sliced answer"))

    fork = source.fork(agent=agent, from_event_id=cut)
    try:
        assert fork.state.leaf_event_id == cut
        assert [event.id for event in fork.state.events][-1] == cut
        assert len(fork.state.events) < len(source.state.events)
        fork.send_message("another question")
        fork.run()

        assert isinstance(agent.llm, TestLLM)
        sent = [message.text for message in agent.llm.calls[0]]
        assert sent[-2:] == ["first question", "another question"]
    finally:
        fork.close()


def test_forking_from_an_unknown_event_is_refused_and_creates_nothing(
    make_conversation, reply, persistence_dir
) -> None:
    source = _ran(make_conversation, reply)
    before = sorted(path.name for path in persistence_dir.iterdir())

    with pytest.raises(UnknownEventError, match="not in conversation"):
        source.fork(agent=_agent(), from_event_id="no-such-event")

    assert sorted(path.name for path in persistence_dir.iterdir()) == before


def test_a_persisted_conversation_is_forked_next_to_it_and_reopens(
    make_conversation, reply, persistence_dir
) -> None:
    source = _ran(make_conversation, reply)
    fork = source.fork(agent=_agent(), title="kept")
    fork_id, events = fork.id, [event.id for event in fork.state.events]
    fork.close()

    summary = load_conversation_summary(persistence_dir, fork_id)
    assert summary is not None
    assert summary.execution_status == Status.IDLE
    assert summary.title == "kept"
    reopened = LocalConversation(None, persistence_dir=persistence_dir, conversation_id=fork_id)
    try:
        assert [event.id for event in reopened.state.events] == events
        assert reopened.state.tags == {"title": "kept"}
    finally:
        reopened.close()


def test_an_in_memory_conversation_forks_in_memory(make_conversation, reply) -> None:
    source = _ran(make_conversation, reply, persist=False)

    fork = source.fork(agent=_agent())
    try:
        assert fork.state.persistence_dir is None
        assert len(fork.state.events) == len(source.state.events)
    finally:
        fork.close()


def test_a_fork_id_already_in_use_is_refused(make_conversation, reply) -> None:
    source = _ran(make_conversation, reply)
    other, _ = make_conversation()

    with pytest.raises(ValueError, match="already exists"):
        source.fork(agent=_agent(), conversation_id=other.id)
    with pytest.raises(ValueError, match="other than its source"):
        source.fork(agent=_agent(), conversation_id=source.id)


def test_a_fork_takes_the_given_id(make_conversation, reply) -> None:
    source = _ran(make_conversation, reply)
    wanted = uuid.uuid4()

    fork = source.fork(agent=_agent(), conversation_id=str(wanted))
    try:
        assert fork.id == wanted
    finally:
        fork.close()


def test_a_fork_keeps_the_secrets(make_conversation, reply) -> None:
    source = _ran(make_conversation, reply)
    source.update_secrets({"API_TOKEN": "s3cr3t"})

    fork = source.fork(agent=_agent())
    try:
        assert fork.state.secret_registry.env_for("echo $API_TOKEN") == {"API_TOKEN": "s3cr3t"}
    finally:
        fork.close()
