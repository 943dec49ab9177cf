"""The conversation tree: `parent_id`, the HEAD, `navigate_to` and the branch the LLM sees."""

from __future__ import annotations

import json

import pytest
from openhands.sdk import (
    ConversationStateUpdateEvent,
    LocalConversation,
    MessageEvent,
)
from openhands.sdk.conversation import ConversationAlreadyRunningError, UnknownEventError
from openhands.sdk.event import events_to_messages
from openhands.sdk.event.base import ROOT_PARENT_ID


def _first_user_message(conversation: LocalConversation) -> str:
    return next(
        event.id
        for event in conversation.state.events
        if isinstance(event, MessageEvent) and event.source == "user"
    )


def _sent_texts(messages) -> list[str]:
    return [message.text for message in messages]


def test_each_event_follows_the_previous_one_and_state_updates_are_not_nodes(
    make_conversation, reply
) -> None:
    conversation, _ = make_conversation([reply.text("answer")])
    conversation.send_message("question")
    conversation.run()

    events = list(conversation.state.events)
    nodes = [event for event in events if not isinstance(event, ConversationStateUpdateEvent)]
    assert nodes[0].parent_id is None
    assert [event.parent_id for event in nodes[1:]] == [event.id for event in nodes[:-1]]
    updates = [event for event in events if isinstance(event, ConversationStateUpdateEvent)]
    assert updates and all(event.parent_id is None for event in updates)
    assert conversation.state.leaf_event_id == nodes[-1].id


def test_callbacks_get_the_event_as_stored_with_its_parent(make_conversation, reply) -> None:
    seen = []
    conversation, _ = make_conversation([reply.text("answer")], callbacks=[seen.append])
    conversation.send_message("question")
    conversation.run()

    assert seen == list(conversation.state.events)


def test_after_navigating_the_next_message_starts_a_sibling_branch(
    make_conversation, reply
) -> None:
    conversation, llm = make_conversation([reply.text("first answer"), reply.text("other")])
    conversation.send_message("first question")
    conversation.run()
    cut = _first_user_message(conversation)
    total = len(conversation.state.events)

    conversation.navigate_to(cut)
    conversation.send_message("instead this")
    conversation.run()

    assert conversation.state.leaf_event_id != cut
    sibling = next(
        event
        for event in conversation.state.events
        if isinstance(event, MessageEvent) and event.llm_message.text == "instead this"
    )
    assert sibling.parent_id == cut
    assert len(conversation.state.events) > total  # the old branch stays in the log
    assert _sent_texts(llm.calls[1])[-2:] == ["first question", "instead this"]
    assert "first answer" not in _sent_texts(llm.calls[1])


def test_the_view_holds_only_the_active_branch(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.text("first answer")])
    conversation.send_message("first question")
    conversation.run()
    cut = _first_user_message(conversation)

    conversation.navigate_to(cut)

    view = conversation.state.view.events
    assert view[-1].id == cut
    assert all(event.id in {e.id for e in conversation.state.events} for event in view)
    assert not any(isinstance(event, MessageEvent) and event.source == "agent" for event in view)


def test_the_incremental_history_equals_a_full_conversion_of_the_branch(
    make_conversation, reply
) -> None:
    conversation, _ = make_conversation(
        [reply.think("a"), reply.text("one"), reply.think("b"), reply.text("two")]
    )
    conversation.send_message("first")
    conversation.run()
    cut = _first_user_message(conversation)
    conversation.navigate_to(cut)
    conversation.send_message("second")
    conversation.run()

    incremental = conversation.state.llm_messages()

    assert incremental == events_to_messages(conversation.state.active_branch())
    assert "one" not in _sent_texts(incremental)


def test_a_head_move_survives_a_reopen(make_conversation, reply, persistence_dir) -> None:
    conversation, _ = make_conversation([reply.text("first answer")])
    conversation.send_message("first question")
    conversation.run()
    cut = _first_user_message(conversation)
    conversation.navigate_to(cut)
    conversation.close()

    reopened, _ = make_conversation([reply.text("again")], conversation_id=conversation.id)
    assert reopened.state.leaf_event_id == cut
    reopened.send_message("from the cut")
    reopened.run()

    message = next(
        event
        for event in reopened.state.events
        if isinstance(event, MessageEvent) and event.llm_message.text == "from the cut"
    )
    assert message.parent_id == cut


def test_a_log_written_before_parents_reads_as_one_branch(
    make_conversation, reply, persistence_dir
) -> None:
    conversation, _ = make_conversation([reply.think("a"), reply.text("answer")])
    conversation.send_message("question")
    conversation.run()
    expected = conversation.state.llm_messages()
    conversation.close()
    log = persistence_dir / conversation.id.hex / "events.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    for line in lines:
        line.pop("parent_id", None)
    log.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))

    reopened, _ = make_conversation([reply.text("more")], conversation_id=conversation.id)

    nodes = [e for e in reopened.state.events if not isinstance(e, ConversationStateUpdateEvent)]
    assert reopened.state.leaf_event_id == nodes[-1].id
    assert [event.id for event in reopened.state.active_branch()] == [e.id for e in nodes]
    assert reopened.state.llm_messages() == expected


def test_navigating_to_none_starts_a_new_root(make_conversation, reply) -> None:
    conversation, llm = make_conversation([reply.text("first"), reply.text("fresh")])
    conversation.send_message("old question")
    conversation.run()

    conversation.navigate_to(None)
    assert conversation.state.leaf_event_id is None
    conversation.send_message("new question")
    conversation.run()

    root = next(
        event
        for event in conversation.state.events
        if isinstance(event, MessageEvent) and event.llm_message.text == "new question"
    )
    assert root.parent_id == ROOT_PARENT_ID
    assert _sent_texts(llm.calls[1]) == ["new question"]


def test_navigating_to_an_unknown_event_is_refused(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.text("answer")])
    conversation.send_message("question")
    conversation.run()
    update = next(
        e for e in conversation.state.events if isinstance(e, ConversationStateUpdateEvent)
    )

    with pytest.raises(UnknownEventError, match="not in conversation"):
        conversation.navigate_to("no-such-event")
    with pytest.raises(ValueError, match="state updates"):
        conversation.navigate_to(update.id)


def test_navigating_during_a_run_is_refused(make_conversation, reply, gate) -> None:
    import threading

    conversation, _ = make_conversation(
        [reply.call("gated", {"label": "x"}), reply.text("done")], tools=["gated"]
    )
    conversation.send_message("go")
    runner = threading.Thread(target=conversation.run)
    runner.start()
    try:
        assert gate.started.wait(10)
        with pytest.raises(ConversationAlreadyRunningError, match="pause it"):
            conversation.navigate_to(_first_user_message(conversation))
    finally:
        gate.release.set()
        runner.join(10)


def test_navigating_to_the_head_records_nothing(make_conversation, reply) -> None:
    conversation, _ = make_conversation([reply.text("answer")])
    conversation.send_message("question")
    conversation.run()
    head = conversation.state.leaf_event_id
    count = len(conversation.state.events)

    conversation.navigate_to(head)

    assert len(conversation.state.events) == count
