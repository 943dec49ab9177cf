"""`Condensation`: older messages of the LLM's view replaced by a summary.

The event log keeps every event; only the message list sent to the LLM shrinks. The view is
rebuilt from the log identically after a reopen, because the conversion of events to messages
is deterministic and this event says which messages of the view it replaced.
"""

from __future__ import annotations

from typing import ClassVar

from openhands.sdk.event.base import Event, EventSource
from openhands.sdk.event.to_messages import SUMMARY_PREFIX, HistoryRole
from pydantic import Field

__all__ = ["SUMMARY_PREFIX", "Condensation"]


class Condensation(Event):
    """The messages `summary_offset` .. `summary_offset + forgotten_messages` of the LLM's
    view (as it was just before this event) were replaced by one message holding `summary`."""

    history_role: ClassVar[HistoryRole | None] = "condensation"
    source: EventSource = "environment"
    summary: str = Field(description="What the replaced messages said, in brief.")
    summary_offset: int = Field(
        ge=0, description="Where the summary sits in the view (the messages kept before it)."
    )
    forgotten_messages: int = Field(
        default=0, ge=0, description="How many messages of the view the summary replaced."
    )
    forgotten_event_ids: list[str] = Field(
        default_factory=list,
        description="The events whose messages were replaced (read by tools; the view is "
        "rebuilt from `summary_offset` and `forgotten_messages`).",
    )
    llm_response_id: str = Field(default="", description="The summarizing LLM call's id.")
