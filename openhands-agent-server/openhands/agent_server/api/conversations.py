"""REST routes under /api/conversations: create, list, count, read, delete, run, pause."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response, status
from openhands.agent_server.conversations.models import (
    ConversationInfo,
    ConversationPage,
    StartConversationRequest,
)
from openhands.agent_server.conversations.service import ConversationService
from openhands.agent_server.deps import conversation_service, event_service
from openhands.agent_server.events.service import EventService
from openhands.agent_server.models import Success, error_responses
from openhands.agent_server.routing import CheckedRoute
from openhands.sdk.conversation import ConversationExecutionStatus

router = APIRouter(prefix="/api/conversations", tags=["conversations"], route_class=CheckedRoute)

Conversations = Annotated[ConversationService, Depends(conversation_service)]
Live = Annotated[EventService, Depends(event_service)]


@router.post(
    "",
    response_model=ConversationInfo,
    status_code=status.HTTP_201_CREATED,
    responses={
        **error_responses(),
        200: {"model": ConversationInfo, "description": "That id already existed."},
    },
)
async def start_conversation(
    request: StartConversationRequest, conversations: Conversations, response: Response
) -> ConversationInfo:
    """Create a conversation (201), or return the existing one with that id (200)."""
    service, created = await conversations.start(request)
    if not created:
        response.status_code = status.HTTP_200_OK
    return service.info()


@router.get("/search", response_model=ConversationPage, responses=error_responses())
async def search_conversations(
    conversations: Conversations,
    page_id: Annotated[str | None, Query(description="next_page_id of the previous page.")] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 100,
    status: Annotated[
        ConversationExecutionStatus | None, Query(description="Only this execution status.")
    ] = None,
) -> ConversationPage:
    """Conversations, newest first, one page at a time."""
    items, next_page_id = conversations.search(page_id=page_id, limit=limit, status=status)
    return ConversationPage(items=items, next_page_id=next_page_id)


@router.get("/count", response_model=int, responses=error_responses())
async def count_conversations(
    conversations: Conversations,
    status: Annotated[ConversationExecutionStatus | None, Query()] = None,
) -> int:
    """How many conversations there are (with that execution status, if given)."""
    return conversations.count(status)


@router.get("/{conversation_id}", response_model=ConversationInfo, responses=error_responses(404))
async def get_conversation(service: Live) -> ConversationInfo:
    """One conversation."""
    return service.info()


@router.delete("/{conversation_id}", response_model=Success, responses=error_responses(404))
async def delete_conversation(conversation_id: uuid.UUID, conversations: Conversations) -> Success:
    """Stop the conversation's goal and agent, forget it and delete its files."""
    await conversations.delete(conversation_id)
    return Success()


@router.post("/{conversation_id}/run", response_model=Success, responses=error_responses(404, 409))
async def run_conversation(service: Live) -> Success:
    """Run the agent in the background until it finishes, pauses or fails."""
    await service.start_run()
    return Success()


@router.post("/{conversation_id}/pause", response_model=Success, responses=error_responses(404))
async def pause_conversation(service: Live) -> Success:
    """Ask the agent to stop after its current step."""
    await service.pause()
    return Success()
