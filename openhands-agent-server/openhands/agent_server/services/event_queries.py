"""Reading a conversation's event log for clients: one event, a count, a page of a search.

Pure functions over an `EventLog` (no HTTP, no conversation state); the live conversation
calls them with its log, which is read into memory when the conversation is opened.
"""

from __future__ import annotations

import uuid
from enum import StrEnum

from openhands.agent_server.errors import BadRequestError, NotFoundError
from openhands.sdk.conversation import EventLog
from openhands.sdk.event import Event


class EventSortOrder(StrEnum):
    """Order of an event search: oldest first (`TIMESTAMP`) or newest first."""

    TIMESTAMP = "TIMESTAMP"
    TIMESTAMP_DESC = "TIMESTAMP_DESC"


def index_of(log: EventLog, event_id: str, conversation_id: uuid.UUID) -> int:
    """The position of `event_id` in the log, or NotFoundError."""
    index = log.index_of(event_id)
    if index is None:
        raise NotFoundError(f"Event {event_id} is not in conversation {conversation_id}.")
    return index


def get_event(log: EventLog, event_id: str, conversation_id: uuid.UUID) -> Event:
    """The event with `event_id`, or NotFoundError."""
    index = index_of(log, event_id, conversation_id)
    return log.read(index, index + 1)[0]


def count_events(log: EventLog, *, kind: str | None = None, source: str | None = None) -> int:
    """How many events match the filters."""
    if kind is None and source is None:
        return len(log)
    return sum(1 for event in log if _matches(event, kind, source))


def search_events(
    log: EventLog,
    conversation_id: uuid.UUID,
    *,
    page_id: str | None,
    limit: int,
    kind: str | None,
    source: str | None,
    sort_order: EventSortOrder,
) -> tuple[list[Event], str | None]:
    """One page of matching events and the id that starts the next page (or None)."""
    total = len(log)
    descending = sort_order == EventSortOrder.TIMESTAMP_DESC
    if page_id:
        position = log.index_of(page_id)
        if position is None:
            raise BadRequestError(
                f"page_id {page_id!r} is not an event of conversation {conversation_id}; pass "
                "the next_page_id of a previous page, or omit it for the first page."
            )
    else:
        position = total - 1 if descending else 0
    step = -1 if descending else 1
    items: list[Event] = []
    chunk = max(limit + 1, 64)
    while 0 <= position < total:
        if descending:
            batch = log.read(max(0, position - chunk + 1), position + 1)[::-1]
        else:
            batch = log.read(position, min(total, position + chunk))
        for event in batch:
            position += step
            if not _matches(event, kind, source):
                continue
            if len(items) == limit:
                return items, event.id
            items.append(event)
    return items, None


def _matches(event: Event, kind: str | None, source: str | None) -> bool:
    return (kind is None or event.kind == kind) and (source is None or event.source == source)
