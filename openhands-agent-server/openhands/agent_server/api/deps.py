"""FastAPI dependencies that fetch the services a route works on."""

from __future__ import annotations

import uuid

from fastapi import Request
from openhands.agent_server.conversations.service import ConversationService
from openhands.agent_server.events.service import EventService


async def conversation_service(request: Request) -> ConversationService:
    """The server's `ConversationService`."""
    return request.app.state.conversations


async def event_service(conversation_id: uuid.UUID, request: Request) -> EventService:
    """The live conversation named in the path, or 404."""
    return request.app.state.conversations.get(conversation_id)
