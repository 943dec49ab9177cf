"""`POST /api/conversations/{id}/children`: start a child conversation (the default launcher
of the `start_child_conversation` tool)."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, status
from openhands.agent_server.api.deps import registry
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.sdk.wire.children import (
    StartChildConversationRequest,
    StartChildConversationResponse,
)

router = APIRouter(prefix="/api/conversations", tags=["conversations"], route_class=CheckedRoute)

Registry = Annotated[ConversationRegistry, Depends(registry)]


@router.post(
    "/{conversation_id}/children",
    response_model=StartChildConversationResponse,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(404, *STORAGE),
)
async def start_child_conversation(
    conversation_id: uuid.UUID,
    request: StartChildConversationRequest,
    conversations: Registry,
) -> StartChildConversationResponse:
    """Start a child of this conversation: its configuration, a fresh history whose first
    message is `task`, run at once; in a git worktree of its own (`isolation: worktree`,
    when the workspace is in a git repository) or in the parent's folder (`shared`)."""
    from openhands.agent_server.services.children import start_child

    return await start_child(conversations, conversation_id, request)
