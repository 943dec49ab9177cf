"""WebSocket /sockets/events/{id}: every event of a conversation as one JSON text frame.

Query parameters choose where the stream starts: `resend_all=true` replays the whole log,
`after=<event id>` replays what followed that event (a reconnecting client passes the last
id it saw, so it neither misses nor duplicates events); with neither, only new events come.
A refused socket gets an HTTP answer instead of a handshake: 401 (key), 404 (conversation),
400 (unknown `after`, or a `resend_all` that is not a boolean). A deleted conversation closes
its sockets with code 4004.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid

from fastapi import APIRouter, WebSocket
from fastapi.responses import JSONResponse
from openhands.agent_server.auth import API_KEY_HEADER, websocket_authorized
from openhands.agent_server.errors import NotFoundError
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.pubsub import Subscription, SubscriptionClosedError
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.sdk.errors import StorageError
from pydantic import TypeAdapter, ValidationError

logger = logging.getLogger(__name__)

router = APIRouter(tags=["events"])

_BOOL = TypeAdapter(bool)

GONE_CLOSE_CODE = 4004
"""Close code sent when the conversation is deleted (or the server shuts down)."""


async def _deny(websocket: WebSocket, status: int, message: str) -> None:
    """Refuse the handshake with an HTTP status (or a close code if the server cannot)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        body = {"message": message, "detail": message}
        await websocket.send_denial_response(JSONResponse(body, status_code=status))
    else:
        await websocket.close(code=4000 + status, reason=message[:120])


@router.websocket("/sockets/events/{conversation_id}")
async def events_socket(
    websocket: WebSocket,
    conversation_id: str,
    resend_all: str | None = None,
    after: str | None = None,
) -> None:
    """Stream the conversation's events (see the module docstring for the options)."""
    if not websocket_authorized(websocket):
        await _deny(websocket, 401, f"Missing or invalid {API_KEY_HEADER}.")
        return
    replay_all: bool | None = False
    if resend_all is not None:
        replay_all = _flag(resend_all)
        if replay_all is None:
            message = f"resend_all must be true or false (got {resend_all[:40]!r})."
            await _deny(websocket, 400, message)
            return
    try:
        conversation = await _open(websocket, conversation_id)
    except NotFoundError as exc:
        await _deny(websocket, 404, exc.message)
        return
    except StorageError as exc:
        await _deny(websocket, 503, f"The server's storage failed: {exc}")
        return
    log = conversation.events
    start = len(log)
    if replay_all:
        start = 0
    if after:
        index = log.index_of(after)
        if index is None:
            message = f"Event {after} is not in conversation {conversation.id}."
            await _deny(websocket, 400, message)
            return
        start = index + 1
    await websocket.accept()
    subscription = conversation.pubsub.subscribe(start)
    try:
        await _serve(websocket, subscription)
    finally:
        subscription.close()


def _flag(value: str) -> bool | None:
    """A query flag as pydantic reads a bool (true/1/yes/on ...); None if it is not one."""
    try:
        return _BOOL.validate_python(value)
    except ValidationError:
        return None


async def _open(websocket: WebSocket, conversation_id: str) -> LiveConversation:
    """The conversation (opened if needed); NotFoundError for an unknown or malformed id."""
    try:
        key = uuid.UUID(conversation_id)
    except ValueError:
        raise NotFoundError(f"Conversation {conversation_id} does not exist.") from None
    conversations: ConversationRegistry = websocket.app.state.conversations
    conversation = await conversations.get(key)
    conversation.ensure_open()
    return conversation


async def _serve(websocket: WebSocket, subscription: Subscription) -> None:
    sender = asyncio.create_task(_send_events(websocket, subscription))
    receiver = asyncio.create_task(_drain(websocket))
    try:
        done, _ = await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sender, receiver):
            task.cancel()
        await asyncio.gather(sender, receiver, return_exceptions=True)
    if sender in done and isinstance(sender.exception(), SubscriptionClosedError):
        with contextlib.suppress(Exception):
            await websocket.close(code=GONE_CLOSE_CODE, reason="conversation closed")


async def _send_events(websocket: WebSocket, subscription: Subscription) -> None:
    async for batch in subscription.batches():
        for event in batch:
            await websocket.send_text(event.model_dump_json())


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) client frames so a disconnect is noticed at once."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
