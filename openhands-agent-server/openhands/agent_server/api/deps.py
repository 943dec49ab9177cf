"""FastAPI dependencies: the registry, and the (opened) conversation a path names."""

from __future__ import annotations

import uuid

from fastapi import Request
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.registry import ConversationRegistry


async def registry(request: Request) -> ConversationRegistry:
    """The server's `ConversationRegistry`."""
    return request.app.state.conversations


async def live_conversation(conversation_id: uuid.UUID, request: Request) -> LiveConversation:
    """The conversation named in the path, opened if it was not yet; 404 if unknown."""
    conversations: ConversationRegistry = request.app.state.conversations
    return await conversations.get(conversation_id)
