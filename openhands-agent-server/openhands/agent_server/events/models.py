"""Models of the event routes: search pages and sort orders, documented for OpenAPI."""

from __future__ import annotations

from enum import StrEnum

from openhands.sdk.event import (
    ActionEvent,
    AgentErrorEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    MessageEvent,
    ObservationEvent,
    PauseEvent,
    SystemPromptEvent,
    UserRejectObservation,
)
from pydantic import BaseModel, Field

AnyEvent = (
    MessageEvent
    | ActionEvent
    | ObservationEvent
    | AgentErrorEvent
    | UserRejectObservation
    | SystemPromptEvent
    | PauseEvent
    | ConversationErrorEvent
    | ConversationStateUpdateEvent
)
"""Every event kind the SDK defines; the JSON `kind` field names the class."""


class EventSortOrder(StrEnum):
    """Order of an event search: oldest first (`TIMESTAMP`) or newest first."""

    TIMESTAMP = "TIMESTAMP"
    TIMESTAMP_DESC = "TIMESTAMP_DESC"


class EventPage(BaseModel):
    """One page of an event search."""

    items: list[AnyEvent] = Field(description="Events, each with a `kind` discriminator.")
    next_page_id: str | None = Field(
        default=None, description="Pass as `page_id` to get the next page; null on the last."
    )
