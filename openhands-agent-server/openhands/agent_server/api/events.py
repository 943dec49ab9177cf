"""REST routes for a conversation's events: send a message, search, count, read one."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response
from openhands.agent_server.conversations.models import SendMessageRequest
from openhands.agent_server.deps import event_service
from openhands.agent_server.errors import InvalidRequestError
from openhands.agent_server.events.models import AnyEvent, EventPage, EventSortOrder
from openhands.agent_server.events.service import EventService
from openhands.agent_server.models import Success, error_responses
from openhands.agent_server.routing import CheckedRoute
from openhands.sdk.event import Event, EventSource

router = APIRouter(
    prefix="/api/conversations/{conversation_id}/events", tags=["events"], route_class=CheckedRoute
)

Live = Annotated[EventService, Depends(event_service)]
JSON = "application/json"

KindQuery = Annotated[
    str | None, Query(description="Only events of this kind (class name, e.g. MessageEvent).")
]
SourceQuery = Annotated[EventSource | None, Query(description="Only events from this source.")]


def _check_kind(kind: str | None) -> None:
    if kind is not None and kind not in Event.kinds():
        raise InvalidRequestError(
            f"kind must be an event class name, one of: {', '.join(Event.kinds())}",
            ("query", "kind"),
        )


@router.post("", response_model=Success, responses=error_responses(404))
async def send_message(request: SendMessageRequest, service: Live) -> Success:
    """Append a user message (it interrupts an active goal first); `run` starts the agent."""
    await service.send_message(request.to_message(), run=request.run)
    return Success()


@router.get("/search", response_model=EventPage, responses=error_responses(404))
async def search_events(
    service: Live,
    page_id: Annotated[str | None, Query(description="next_page_id of the previous page.")] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 100,
    kind: KindQuery = None,
    source: SourceQuery = None,
    sort_order: Annotated[EventSortOrder, Query()] = EventSortOrder.TIMESTAMP,
) -> Response:
    """Events, oldest first (or newest first), one page at a time."""
    _check_kind(kind)
    items, next_page_id = service.search_events(
        page_id=page_id, limit=limit, kind=kind, source=source, sort_order=sort_order
    )
    # Events are serialized by their own class (the page model would drop subclass fields).
    events = ",".join(event.model_dump_json() for event in items)
    cursor = f'"{next_page_id}"' if next_page_id else "null"
    body = f'{{"items":[{events}],"next_page_id":{cursor}}}'
    return Response(content=body, media_type=JSON)


@router.get("/count", response_model=int, responses=error_responses(404))
async def count_events(service: Live, kind: KindQuery = None, source: SourceQuery = None) -> int:
    """How many events match the filters."""
    _check_kind(kind)
    return service.count_events(kind=kind, source=source)


@router.get("/{event_id}", response_model=AnyEvent, responses=error_responses(404))
async def get_event(event_id: str, service: Live) -> Response:
    """One event by id."""
    return Response(content=service.get_event(event_id).model_dump_json(), media_type=JSON)
