"""Events become the LLM's message list: parallel calls merged, tool answers kept adjacent."""

from __future__ import annotations

from typing import ClassVar

from openhands.sdk.event import (
    ActionEvent,
    AgentErrorEvent,
    ConversationStateUpdateEvent,
    Event,
    MessageEvent,
    ObservationEvent,
    SystemPromptEvent,
    events_to_messages,
)
from openhands.sdk.event.to_messages import INTERRUPTED_TOOL_CALL, HistoryRole, MessageHistory
from openhands.sdk.llm import Message, MessageToolCall, TextContent
from openhands.sdk.tool.builtins.think import ThinkAction, ThinkObservation


def _system() -> SystemPromptEvent:
    return SystemPromptEvent(system_prompt=TextContent(text="sys"))


def _user(text: str) -> MessageEvent:
    return MessageEvent(
        source="user", llm_message=Message(role="user", content=[TextContent(text=text)])
    )


def _action(call_id: str, response_id: str, name: str = "think") -> ActionEvent:
    return ActionEvent(
        tool_name=name,
        tool_call_id=call_id,
        tool_call=MessageToolCall(id=call_id, name=name, arguments="{}"),
        action=ThinkAction(thought="x"),
        llm_response_id=response_id,
    )


def _result(call_id: str, text: str = "ok") -> ObservationEvent:
    return ObservationEvent(
        tool_name="think",
        tool_call_id=call_id,
        action_id="a",
        observation=ThinkObservation.from_text(text),
    )


def _shape(messages: list[Message]) -> list[tuple[str, object]]:
    """(role, tool call ids or answered call id or text) per message."""
    shape: list[tuple[str, object]] = []
    for message in messages:
        if message.tool_calls:
            shape.append((message.role, [call.id for call in message.tool_calls]))
        elif message.role == "tool":
            shape.append((message.role, message.tool_call_id))
        else:
            shape.append((message.role, message.text))
    return shape


def test_parallel_calls_of_one_reply_become_one_assistant_message() -> None:
    events: list[Event] = [
        _system(),
        _user("go"),
        _action("c1", "r1"),
        _action("c2", "r1"),
        _result("c1"),
        _result("c2"),
    ]

    assert _shape(events_to_messages(events)) == [
        ("system", "sys"),
        ("user", "go"),
        ("assistant", ["c1", "c2"]),
        ("tool", "c1"),
        ("tool", "c2"),
    ]


def test_consecutive_replies_stay_separate_messages() -> None:
    events: list[Event] = [_action("c1", "r1"), _result("c1"), _action("c2", "r2"), _result("c2")]

    assert _shape(events_to_messages(events)) == [
        ("assistant", ["c1"]),
        ("tool", "c1"),
        ("assistant", ["c2"]),
        ("tool", "c2"),
    ]


def test_non_llm_events_are_skipped_and_do_not_split_a_reply() -> None:
    status = ConversationStateUpdateEvent(key="execution_status", value="running")
    events: list[Event] = [
        _action("c1", "r1"),
        status,
        _action("c2", "r1"),
        _result("c1"),
        _result("c2"),
    ]

    assert _shape(events_to_messages(events))[0] == ("assistant", ["c1", "c2"])


def test_user_message_sent_mid_step_waits_until_the_calls_are_answered() -> None:
    events: list[Event] = [
        _action("c1", "r1"),
        _user("also check the README"),
        _action("c2", "r1"),
        _result("c1"),
        _result("c2"),
    ]

    assert _shape(events_to_messages(events)) == [
        ("assistant", ["c1", "c2"]),
        ("tool", "c1"),
        ("tool", "c2"),
        ("user", "also check the README"),
    ]


def test_error_answers_count_as_answers() -> None:
    error = AgentErrorEvent(tool_name="think", tool_call_id="c1", error="bad")
    events: list[Event] = [_action("c1", "r1"), _user("hi"), error]

    shape = _shape(events_to_messages(events))

    assert shape == [("assistant", ["c1"]), ("tool", "c1"), ("user", "hi")]


def test_a_call_left_unanswered_by_a_crash_gets_an_interrupted_answer() -> None:
    messages = events_to_messages([_user("go"), _action("c1", "r1"), _user("are you there?")])

    assert _shape(messages) == [
        ("user", "go"),
        ("assistant", ["c1"]),
        ("tool", "c1"),
        ("user", "are you there?"),
    ]
    assert messages[2].text == INTERRUPTED_TOOL_CALL


def test_a_new_reply_closes_calls_the_previous_one_left_open() -> None:
    events: list[Event] = [_action("c1", "r1"), _action("c2", "r2"), _result("c2")]

    assert _shape(events_to_messages(events)) == [
        ("assistant", ["c1"]),
        ("tool", "c1"),
        ("assistant", ["c2"]),
        ("tool", "c2"),
    ]


def test_incremental_extension_matches_a_full_conversion() -> None:
    events: list[Event] = [
        _system(),
        _user("go"),
        _action("c1", "r1"),
        _user("mid-step"),
        _action("c2", "r1"),
        _result("c1"),
        _result("c2"),
        _action("c3", "r2"),
        _result("c3"),
    ]
    history = MessageHistory()
    snapshots = []
    for event in events:
        history.extend([event])
        snapshots.append(history.messages)

    assert snapshots[-1] == events_to_messages(events)


def test_reading_open_calls_does_not_lose_their_real_answers() -> None:
    history = MessageHistory()
    history.extend([_action("c1", "r1")])
    assert history.messages[-1].text == INTERRUPTED_TOOL_CALL

    history.extend([_result("c1", "real answer")])

    assert _shape(history.messages) == [("assistant", ["c1"]), ("tool", "c1")]
    assert history.messages[-1].text == "real answer"


def test_messages_is_a_copy() -> None:
    history = MessageHistory()
    history.extend([_user("a")])

    history.messages.clear()

    assert len(history.messages) == 1


class _Note(Event):
    """A custom kind that answers tool calls: it declares that part, and the history keeps
    it next to its call like a built-in result."""

    history_role: ClassVar[HistoryRole | None] = "tool_result"
    tool_call_id: str
    note: str

    def to_llm_message(self) -> Message:
        return Message(
            role="tool", content=[TextContent(text=self.note)], tool_call_id=self.tool_call_id
        )


def test_an_event_kind_takes_part_in_the_history_by_declaring_its_role() -> None:
    messages = events_to_messages([_action("c1", "r1"), _Note(tool_call_id="c1", note="seen")])

    assert _shape(messages) == [("assistant", ["c1"]), ("tool", "c1")]
    assert messages[-1].text == "seen"


def test_an_event_kind_without_a_role_stays_out_of_the_history() -> None:
    update = ConversationStateUpdateEvent(key="execution_status", value="running")

    assert update.history_role is None
    assert events_to_messages([_user("hi"), update]) == events_to_messages([_user("hi")])
