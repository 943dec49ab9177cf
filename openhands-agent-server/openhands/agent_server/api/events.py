"""REST routes for a conversation's events: send a message, search, count, read one."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response
from openhands.agent_server.api.deps import live_conversation
from openhands.agent_server.api.models import STORAGE, AnyEvent, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.errors import InvalidRequestError
from openhands.agent_server.services.event_queries import EventSortOrder
from openhands.agent_server.services.live import LiveConversation
from openhands.sdk.event import Event, EventSource
from openhands.sdk.wire import (
    ConfirmationResponseRequest,
    EventPage,
    SendMessageRequest,
    Success,
)

router = APIRouter(
    prefix="/api/conversations/{conversation_id}/events", tags=["events"], route_class=CheckedRoute
)

Live = Annotated[LiveConversation, Depends(live_conversation)]
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


@router.post("", response_model=Success, responses=error_responses(400, 404, 409, *STORAGE))
async def send_message(request: SendMessageRequest, conversation: Live) -> Success:
    """Append a user message (it interrupts an active goal first); `run` starts the agent."""
    await conversation.send_message(request.to_message(), run=request.run, sender=request.sender)
    return Success()


@router.post(
    "/respond_to_confirmation",
    response_model=Success,
    responses=error_responses(404, 409, *STORAGE),
)
async def respond_to_confirmation(
    request: ConfirmationResponseRequest, conversation: Live
) -> Success:
    """Approve (`accept: true`) or reject (with a `reason` the agent reads) the tool calls
    that wait for approval; the agent then goes on. 409 when nothing waits."""
    await conversation.respond_to_confirmation(request.accept, request.reason)
    return Success()


@router.get("/search", response_model=EventPage, responses=error_responses(400, 404))
async def search_events(
    conversation: Live,
    page_id: Annotated[str | None, Query(description="next_page_id of the previous page.")] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 100,
    kind: KindQuery = None,
    source: SourceQuery = None,
    sort_order: Annotated[EventSortOrder, Query()] = EventSortOrder.TIMESTAMP,
) -> Response:
    """Events, oldest first (or newest first), one page at a time."""
    _check_kind(kind)
    items, next_page_id = conversation.search_events(
        page_id=page_id, limit=limit, kind=kind, source=source, sort_order=sort_order
    )
    # Serialized once, each event by its own class (no re-validation of the page).
    page = EventPage(items=items, next_page_id=next_page_id)
    return Response(content=page.model_dump_json(), media_type=JSON)


@router.get("/count", response_model=int, responses=error_responses(404))
async def count_events(
    conversation: Live, kind: KindQuery = None, source: SourceQuery = None
) -> int:
    """How many events match the filters."""
    _check_kind(kind)
    return conversation.count_events(kind=kind, source=source)


@router.get("/{event_id}", response_model=AnyEvent, responses=error_responses(404))
async def get_event(event_id: str, conversation: Live) -> Response:
    """One event by id."""
    event = conversation.get_event(event_id)
    return Response(content=event.model_dump_json(), media_type=JSON)
