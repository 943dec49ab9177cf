"""Turn an event history into the LLM's message list, incrementally."""

from __future__ import annotations

from collections.abc import Iterable

from openhands.sdk.event.action import ActionEvent
from openhands.sdk.event.base import Event, LLMConvertibleEvent
from openhands.sdk.llm.message import Message


class MessageHistory:
    """Keeps the LLM message list for a growing event history, converting each event once.

    Tool calls made in one LLM reply (same `llm_response_id`) are merged back into one
    assistant message, as the provider expects.
    """

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._last_response_id: str | None = None

    def extend(self, events: Iterable[Event]) -> None:
        """Convert and append newly added events."""
        for event in events:
            if not isinstance(event, LLMConvertibleEvent):
                continue
            if (
                isinstance(event, ActionEvent)
                and event.llm_response_id
                and event.llm_response_id == self._last_response_id
                and self._messages
            ):
                last = self._messages[-1]
                calls = [*(last.tool_calls or []), event.tool_call]
                self._messages[-1] = last.model_copy(update={"tool_calls": calls})
                continue
            self._messages.append(event.to_llm_message())
            self._last_response_id = (
                event.llm_response_id if isinstance(event, ActionEvent) else None
            )

    @property
    def messages(self) -> list[Message]:
        """A copy of the message list so far."""
        return list(self._messages)


def events_to_messages(events: Iterable[Event]) -> list[Message]:
    """The LLM message list for a whole event history."""
    history = MessageHistory()
    history.extend(events)
    return history.messages
