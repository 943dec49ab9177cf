"""Wire model of a page of events, read by each event's own class (unknown kinds skipped)."""

from __future__ import annotations

import logging
from typing import Any

from openhands.sdk.event.base import Event, UnknownEventKindError
from openhands.sdk.wire.base import WIRE
from pydantic import BaseModel, Field, SerializeAsAny, ValidationError, field_validator

logger = logging.getLogger("openhands.sdk.wire")


class EventPage(BaseModel):
    """One page of an event search; each event is (de)serialized by its own class.

    Reading a page skips (and logs) an event whose `kind` this SDK does not know, as the
    event stream does, so an older client keeps working against a newer server.
    """

    model_config = WIRE

    items: list[SerializeAsAny[Event]] = Field(
        description="Events, each with a `kind` discriminator naming its class."
    )
    next_page_id: str | None = Field(
        default=None, description="Pass as `page_id` to get the next page; null on the last."
    )

    @field_validator("items", mode="before")
    @classmethod
    def _by_kind(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        events: list[Any] = []
        for item in value:
            if not isinstance(item, dict):
                events.append(item)
                continue
            try:
                events.append(Event.model_validate(item))
            except (UnknownEventKindError, ValidationError) as exc:
                logger.warning("Ignoring an item that is not a known event: %s", _first(exc))
        return events


def _first(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
