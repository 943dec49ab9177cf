"""The judge's view of a conversation: a bounded, incrementally rendered `role: text` transcript.

Each event is rendered once, long texts are cut to a per-entry limit (head and tail kept), and
only the newest entries that fit a character budget are kept. Rendering reads the event log
from the newest event backwards and stops when the budget is full, so a round costs
O(new events + budget), never O(history).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence

from openhands.sdk.contracts import EventHistory
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.event.action import (
    ActionEvent,
    AgentErrorEvent,
    ObservationEvent,
    UserRejectObservation,
)
from openhands.sdk.event.base import Event, LLMConvertibleEvent
from openhands.sdk.event.message import MessageEvent, SystemPromptEvent
from openhands.sdk.event.state import ConversationErrorEvent
from openhands.sdk.llm.message import ImageContent, Message, TextContent
from openhands.sdk.utils.truncate import truncate_middle

DEFAULT_TRANSCRIPT_CHARS = 24_000
"""Default character budget of the transcript shown to the judge."""

DEFAULT_ENTRY_CHARS = 3_000
"""Default limit for one rendered event (long tool outputs are cut in the middle)."""

OMITTED_MARKER = "[... earlier conversation omitted to fit the judge's budget ...]"

_READ_CHUNK = 64


def _message_text(message: Message) -> str:
    parts: list[str] = []
    for part in message.content:
        if isinstance(part, TextContent):
            parts.append(part.text)
        elif isinstance(part, ImageContent):
            parts.append(f"[{len(part.image_urls)} image(s)]")
    return "\n".join(parts)


def _call_text(name: str, arguments: str) -> str:
    try:
        parsed = json.loads(arguments or "{}")
        rendered = json.dumps(parsed, ensure_ascii=False)
    except ValueError:
        rendered = arguments
    return f"[tool call] {name} {rendered}"


def render_event(event: Event, entry_chars: int = DEFAULT_ENTRY_CHARS) -> str | None:
    """One `role: text` line for `event`, or None for events the judge does not see.

    The system prompt, state updates and pauses are left out; tool calls, tool outputs,
    agent errors and conversation errors are kept, since they are the evidence.
    """
    if isinstance(event, SystemPromptEvent):
        return None
    if isinstance(event, MessageEvent):
        role, text = event.llm_message.role, _message_text(event.llm_message)
    elif isinstance(event, ActionEvent):
        thought = "\n".join(part.text for part in event.thought if part.text.strip())
        call = _call_text(event.tool_name, event.tool_call.arguments)
        role, text = "assistant", f"{thought}\n{call}" if thought else call
    elif isinstance(event, ObservationEvent):
        suffix = " [error]" if event.is_error else ""
        role, text = f"tool ({event.tool_name}){suffix}", _message_text(event.to_llm_message())
    elif isinstance(event, AgentErrorEvent):
        role, text = f"tool ({event.tool_name}) [error]", event.error
    elif isinstance(event, UserRejectObservation):
        role, text = f"tool ({event.tool_name}) [rejected]", event.rejection_reason
    elif isinstance(event, ConversationErrorEvent):
        role, text = "error", f"{event.code}: {event.detail}"
    elif isinstance(event, LLMConvertibleEvent):
        message = event.to_llm_message()
        if message.role == "system":
            return None
        role, text = message.role, _message_text(message)
    else:
        return None
    return f"{role}: {truncate_middle(text.strip(), entry_chars)}"


def read_range(events: Sequence[Event] | EventHistory, start: int, stop: int) -> list[Event]:
    """Events [start, stop) of a sequence, or of an event log through its `read`."""
    # A Sequence check is an ABC lookup; a runtime Protocol check costs tens of microseconds.
    if isinstance(events, Sequence):
        return list(events[start:stop])
    return list(events.read(start, stop))


class TranscriptWindow:
    """The newest part of a conversation, rendered for the judge within a character budget.

    Call `update(events)` with the whole (growing) event history each round: only events
    added since the last call are rendered, newest first, and only as many as fit.
    """

    def __init__(
        self, max_chars: int = DEFAULT_TRANSCRIPT_CHARS, entry_chars: int = DEFAULT_ENTRY_CHARS
    ) -> None:
        if max_chars < 200:
            raise InvalidArgumentError(f"max_chars must be >= 200 characters, got {max_chars}")
        self.max_chars = max_chars
        # Leave room for the omission marker and a role prefix so one entry always fits.
        self.entry_chars = max(100, min(entry_chars, max_chars - len(OMITTED_MARKER) - 70))
        self._entries: deque[str] = deque()
        self._chars = 0
        self._seen = 0
        self._last_id: str | None = None
        self._omitted = False

    @property
    def seen(self) -> int:
        """How many events of the history have been taken into account."""
        return self._seen

    def reset(self) -> None:
        """Forget everything (the next `update` renders from the newest event backwards)."""
        self._entries.clear()
        self._chars = 0
        self._seen = 0
        self._last_id = None
        self._omitted = False

    def update(self, events: Sequence[Event] | EventHistory) -> str:
        """Take in the events added since the last call and return the transcript text."""
        total = len(events)
        if total < self._seen or not self._same_history(events):
            self.reset()
        if total > self._seen:
            self._take(events, self._seen, total)
            self._seen = total
            self._last_id = read_range(events, total - 1, total)[0].id
        return self.text()

    def text(self) -> str:
        """The transcript: an omission marker if older events were dropped, then the entries."""
        body = "\n".join(self._entries)
        if self._omitted:
            return f"{OMITTED_MARKER}\n{body}" if body else OMITTED_MARKER
        return body

    def _same_history(self, events: Sequence[Event] | EventHistory) -> bool:
        if self._seen == 0 or self._last_id is None:
            return True
        return read_range(events, self._seen - 1, self._seen)[0].id == self._last_id

    def _take(self, events: Sequence[Event] | EventHistory, start: int, stop: int) -> None:
        """Render events [start, stop) newest first until the budget is full, then append."""
        budget = self.max_chars - len(OMITTED_MARKER) - 1
        fresh: list[str] = []
        used = 0
        position = stop
        full = False
        while position > start and not full:
            chunk_start = max(start, position - _READ_CHUNK)
            chunk = read_range(events, chunk_start, position)
            for offset in range(len(chunk) - 1, -1, -1):
                entry = render_event(chunk[offset], self.entry_chars)
                if entry is None:
                    continue
                if used + len(entry) + 1 > budget:
                    full = True
                    break
                fresh.append(entry)
                used += len(entry) + 1
            position = chunk_start
        if full:
            # The new events alone fill the budget: everything older goes.
            self._entries.clear()
            self._chars = 0
            self._omitted = True
        for entry in reversed(fresh):
            self._entries.append(entry)
            self._chars += len(entry) + 1
        while self._chars > budget and self._entries:
            self._chars -= len(self._entries.popleft()) + 1
            self._omitted = True


def render_transcript(
    events: Sequence[Event] | EventHistory,
    max_chars: int = DEFAULT_TRANSCRIPT_CHARS,
    entry_chars: int = DEFAULT_ENTRY_CHARS,
) -> str:
    """The bounded `role: text` transcript of `events` (newest kept, system prompt left out)."""
    return TranscriptWindow(max_chars, entry_chars).update(events)
