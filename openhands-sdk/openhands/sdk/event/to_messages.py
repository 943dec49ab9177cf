"""Turn an event history into the LLM's message list, incrementally.

The history knows events by the part their kind declares it plays (`history_role`: a
message, a tool call, a tool result, a condensation, or none), not by their classes: the
event classes use it (`LLMConvertibleEvent.events_to_messages`), and a new kind of event
takes part by declaring its role.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Literal, Protocol, cast

from openhands.sdk.llm.message import Message, MessageToolCall, TextContent

HistoryRole = Literal["message", "tool_call", "tool_result", "condensation"]
"""The part an event plays in the LLM's message history (an event class's `history_role`)."""

SUMMARY_PREFIX = "Summary of the earlier part of this conversation (condensed to save context):"
"""How the summary message of a condensation starts, so the LLM (and a reader) knows what it
is."""

INTERRUPTED_TOOL_CALL = (
    "Error: this tool call was interrupted before it returned a result "
    "(the run stopped or crashed mid-step). Check its effects before repeating it."
)


class HistoryEvent(Protocol):
    """An event as the history reads it: its kind's role (None: not part of the history)."""

    history_role: ClassVar[HistoryRole | None]


class MessageEntry(Protocol):
    """An event that becomes one message (role `message`; the others have it too)."""

    def to_llm_message(self) -> Message: ...


class ToolResultEntry(MessageEntry, Protocol):
    """The answer to one tool call (role `tool_result`)."""

    @property
    def tool_call_id(self) -> str: ...


class ToolCallEntry(ToolResultEntry, Protocol):
    """One tool call of an LLM reply (role `tool_call`)."""

    @property
    def tool_name(self) -> str: ...

    @property
    def llm_response_id(self) -> str: ...

    @property
    def tool_call(self) -> MessageToolCall: ...


class CondensationEntry(Protocol):
    """Messages of the view replaced by a summary (role `condensation`)."""

    @property
    def summary(self) -> str: ...

    @property
    def summary_offset(self) -> int: ...

    @property
    def forgotten_messages(self) -> int: ...


class MessageHistory:
    """Keeps the LLM message list for a growing event history, converting each event once.

    Providers require every assistant tool call to be answered by a tool message right after
    it, so: calls made in one LLM reply (same `llm_response_id`) are merged into one assistant
    message; a message that arrives while calls are still unanswered (a user typing mid-step)
    is held back until the answers are in; and calls that will never be answered (a crash
    mid-step) get a synthetic error answer.
    """

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._open_calls: dict[str, str] = {}  # tool_call_id -> tool name, awaiting a result
        self._held: list[Message] = []
        self._last_response_id: str | None = None

    def extend(self, events: Iterable[HistoryEvent]) -> None:
        """Convert and append newly added events."""
        for event in events:
            role = event.history_role
            if role == "tool_call":
                self._add_call(cast(ToolCallEntry, event))
            elif role == "tool_result":
                self._add_result(cast(ToolResultEntry, event))
            elif role == "message":
                self._add_other(cast(MessageEntry, event).to_llm_message())
            elif role == "condensation":
                self._condense(cast(CondensationEntry, event))

    def _add_call(self, event: ToolCallEntry) -> None:
        same_reply = bool(event.llm_response_id) and event.llm_response_id == self._last_response_id
        if same_reply and self._messages and self._messages[-1].role == "assistant":
            last = self._messages[-1]
            calls = [*(last.tool_calls or []), event.tool_call]
            self._messages[-1] = last.model_copy(update={"tool_calls": calls})
        else:
            self._close_dangling_calls()
            self._messages.append(event.to_llm_message())
            self._last_response_id = event.llm_response_id or None
        self._open_calls[event.tool_call_id] = event.tool_name

    def _add_result(self, event: ToolResultEntry) -> None:
        self._open_calls.pop(event.tool_call_id, None)
        self._messages.append(event.to_llm_message())
        self._last_response_id = None
        if not self._open_calls:
            self._flush_held()

    def _add_other(self, message: Message) -> None:
        if self._open_calls:
            self._held.append(message)
            return
        self._messages.append(message)
        self._last_response_id = None

    def _condense(self, event: CondensationEntry) -> None:
        """Replace the messages the condensation forgot with its summary message."""
        start = min(event.summary_offset, len(self._messages))
        end = min(start + event.forgotten_messages, len(self._messages))
        summary = Message(
            role="user", content=[TextContent(text=f"{SUMMARY_PREFIX}\n{event.summary}")]
        )
        self._messages[start:end] = [summary]
        self._last_response_id = None

    def _close_dangling_calls(self) -> None:
        """A new reply started: earlier calls without a result never got one."""
        self._messages.extend(self._interrupted_answers())
        self._open_calls.clear()
        self._flush_held()

    def _flush_held(self) -> None:
        self._messages.extend(self._held)
        self._held.clear()

    def _interrupted_answers(self) -> list[Message]:
        return [
            Message(
                role="tool",
                content=[TextContent(text=INTERRUPTED_TOOL_CALL)],
                tool_call_id=call_id,
                name=name,
            )
            for call_id, name in self._open_calls.items()
        ]

    @property
    def messages(self) -> list[Message]:
        """The message list so far, ready to send (a copy; unanswered calls are closed)."""
        if not self._open_calls:
            return list(self._messages)
        # Read between steps, open calls can only be leftovers of an interrupted step.
        return [*self._messages, *self._interrupted_answers(), *self._held]


def events_to_messages(events: Iterable[HistoryEvent]) -> list[Message]:
    """The LLM message list for a whole event history."""
    history = MessageHistory()
    history.extend(events)
    return history.messages
