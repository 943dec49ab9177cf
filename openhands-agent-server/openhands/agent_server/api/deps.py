"""FastAPI dependencies: the registry, the (opened) conversation a path names, the stores,
and the stores of route families loaded on first use (`lazy_service`)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import Request
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.agent_server.services.server_settings import ServerSettings

T = TypeVar("T")


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


async def lazy_service(request: Request, name: str, build: Callable[[], T]) -> T:
    """The per-server object `name`, made by `build` (blocking: in a control thread) on its
    first use and kept on the app: the stores of route families loaded on first use cost
    nothing until then. Concurrent first uses wait for the same build; a failed build is
    retried by the next request."""
    state = request.app.state
    made: dict[str, asyncio.Future[Any]] | None = getattr(state, "lazy_services", None)
    if made is None:
        made = state.lazy_services = {}
    future = made.get(name)
    if future is not None:
        return await asyncio.shield(future)
    future = made[name] = asyncio.get_running_loop().create_future()
    try:
        value = await state.pools.controls.run_to_completion(build)
    except BaseException as exc:
        del made[name]
        future.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
        future.exception()  # waiters (if any) get it; nobody else must
        raise
    future.set_result(value)
    return value
