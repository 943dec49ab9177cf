"""Turn an event history into the LLM's message list, incrementally."""

from __future__ import annotations

from collections.abc import Iterable

from openhands.sdk.event.action import (
    ActionEvent,
    AgentErrorEvent,
    ObservationEvent,
    UserRejectObservation,
)
from openhands.sdk.event.base import Event, LLMConvertibleEvent
from openhands.sdk.event.condenser import SUMMARY_PREFIX, Condensation
from openhands.sdk.llm.message import Message, TextContent

ToolResultEvent = ObservationEvent | AgentErrorEvent | UserRejectObservation

INTERRUPTED_TOOL_CALL = (
    "Error: this tool call was interrupted before it returned a result "
    "(the run stopped or crashed mid-step). Check its effects before repeating it."
)


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

    def extend(self, events: Iterable[Event]) -> None:
        """Convert and append newly added events."""
        for event in events:
            if isinstance(event, ActionEvent):
                self._add_call(event)
            elif isinstance(event, ToolResultEvent):
                self._add_result(event)
            elif isinstance(event, LLMConvertibleEvent):
                self._add_other(event.to_llm_message())
            elif isinstance(event, Condensation):
                self._condense(event)

    def _add_call(self, event: ActionEvent) -> None:
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

    def _add_result(self, event: ToolResultEvent) -> None:
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

    def _condense(self, event: Condensation) -> None:
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


def events_to_messages(events: Iterable[Event]) -> list[Message]:
    """The LLM message list for a whole event history."""
    history = MessageHistory()
    history.extend(events)
    return history.messages
