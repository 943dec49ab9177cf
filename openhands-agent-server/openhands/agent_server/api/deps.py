"""FastAPI dependencies: the registry, the (opened) conversation a path names, the stores."""

from __future__ import annotations

import uuid

from fastapi import Request
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.agent_server.services.server_settings import ServerSettings


async def registry(request: Request) -> ConversationRegistry:
    """The server's `ConversationRegistry`."""
    return request.app.state.conversations


async def live_conversation(conversation_id: uuid.UUID, request: Request) -> LiveConversation:
    """The conversation named in the path, opened if it was not yet; 404 if unknown."""
    conversations: ConversationRegistry = request.app.state.conversations
    return await conversations.get(conversation_id)


async def server_settings(request: Request) -> ServerSettings:
    """The server's stored settings, secrets and LLM profiles."""
    return request.app.state.server_settings


async def control_pool(request: Request) -> BlockingPool:
    """The pool for short blocking work a request waits for (store writes)."""
    return request.app.state.pools.controls
