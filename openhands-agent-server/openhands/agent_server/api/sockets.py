"""WebSocket /sockets/events/{id}: every event of a conversation as one JSON text frame.

Query parameters choose where the stream starts: `resend_all=true` (or `resend_mode=all`)
replays the whole log, `resend_mode=since&after_timestamp=<time>` what was stamped since,
`after=<event id>` what followed that event (a reconnecting client passes the last id it
saw, so it neither misses nor duplicates events); with none, only new events come. The first
frame, and one after each run, is a `full_state` snapshot that is not in the log (what the
reference's clients wait for). The key comes in a header, the query, or (the reference's
clients) as a first frame `{"type": "auth", "session_api_key": ...}`. A refused header or
query key, or a bad option, gets an HTTP answer instead of a handshake (401, 400); a bad
first-frame key closes with 4001; an unknown conversation is accepted and closed with 4004,
as is every socket of a conversation that is deleted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse
from openhands.agent_server.auth import (
    API_KEY_HEADER,
    API_KEY_QUERY,
    key_matches,
    presented_key,
    websocket_authorized,
)
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.errors import NotFoundError
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.pubsub import Subscription, SubscriptionClosedError
from openhands.agent_server.services.registry import ConversationRegistry
from openhands.sdk.conversation.event_log import EventLog
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.errors import StorageError
from openhands.sdk.event import ConversationStateUpdateEvent, Event
from openhands.sdk.event.state import FULL_STATE_KEY
from pydantic import TypeAdapter, ValidationError

logger = logging.getLogger(__name__)

router = APIRouter(tags=["events"])

_BOOL = TypeAdapter(bool)
_DATETIME = TypeAdapter(datetime)

GONE_CLOSE_CODE = 4004
"""Close code sent when the conversation is unknown, deleted, or the server shuts down."""
NOT_FOUND_REASON = "Conversation not found"
"""The close reason of a socket to a conversation that is not here (the reference's words)."""
AUTH_FAILED_CLOSE_CODE = 4001
"""Close code sent when first-message authentication fails (as the reference server does)."""


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
    resend_mode: str | None = None,
    after_timestamp: str | None = None,
) -> None:
    """Stream the conversation's events (see the module docstring for the options)."""
    keys: tuple[str, ...] = websocket.app.state.config.session_api_keys
    first_message_auth = bool(keys) and not presented_key(websocket)
    if not first_message_auth and not websocket_authorized(websocket):
        await _deny(websocket, 401, f"Missing or invalid {API_KEY_HEADER}.")
        return
    try:
        replay = _Replay.parse(resend_all, resend_mode, after_timestamp)
    except ValueError as exc:
        await _deny(websocket, 400, str(exc))
        return
    if first_message_auth:
        await websocket.accept()
        if not await _authenticated_by_first_message(websocket, keys):
            await _close(websocket, AUTH_FAILED_CLOSE_CODE, "Authentication failed")
            return
    try:
        conversation = await _open(websocket, conversation_id)
    except NotFoundError:
        # As the reference server does: accept, then close with 4004, which its clients
        # (and this SDK's) take as "this conversation is not here".
        if not first_message_auth:
            await websocket.accept()
        await _close(websocket, GONE_CLOSE_CODE, NOT_FOUND_REASON)
        return
    except StorageError as exc:
        message = f"The server's storage failed: {exc}"
        if first_message_auth:
            await _close(websocket, 4503, message)
        else:
            await _deny(websocket, 503, message)
        return
    log = conversation.events
    start = len(log)
    if replay.everything:
        start = 0
    elif replay.since is not None:
        start = _first_at_or_after(log, replay.since)
    if after:
        index = log.index_of(after)
        if index is None:
            message = f"Event {after} is not in conversation {conversation.id}."
            if first_message_auth:
                await _close(websocket, 4400, message)
            else:
                await _deny(websocket, 400, message)
            return
        start = index + 1
    if not first_message_auth:
        await websocket.accept()
    subscription = conversation.pubsub.subscribe(start)
    try:
        await _serve(websocket, subscription, conversation)
    finally:
        subscription.close()


@dataclass(frozen=True)
class _Replay:
    """Where a new socket's stream starts, from the reference's and this server's options."""

    everything: bool = False
    since: datetime | None = None

    @classmethod
    def parse(
        cls, resend_all: str | None, resend_mode: str | None, after_timestamp: str | None
    ) -> _Replay:
        """ValueError (its message names the parameter) for a value that is not an option."""
        if resend_mode is not None and resend_mode not in ("all", "since"):
            raise ValueError(f"resend_mode must be 'all' or 'since' (got {resend_mode[:40]!r}).")
        if resend_mode == "all":
            return cls(everything=True)
        if resend_mode == "since":
            if after_timestamp is None:
                raise ValueError("resend_mode=since needs after_timestamp (an ISO 8601 time).")
            try:
                since = _DATETIME.validate_python(after_timestamp)
            except ValidationError:
                raise ValueError(
                    f"after_timestamp must be an ISO 8601 time (got {after_timestamp[:40]!r})."
                ) from None
            return cls(since=since if since.tzinfo else since.astimezone())
        if resend_all is not None:
            flag = _flag(resend_all)
            if flag is None:
                raise ValueError(f"resend_all must be true or false (got {resend_all[:40]!r}).")
            return cls(everything=flag)
        return cls()


def _first_at_or_after(log: EventLog, since: datetime) -> int:
    """The index of the first event stamped at or after `since` (the log's length if none)."""
    for index, event in enumerate(log):
        stamp = event.timestamp if event.timestamp.tzinfo else event.timestamp.astimezone()
        if stamp >= since:
            return index
    return len(log)


async def _authenticated_by_first_message(websocket: WebSocket, keys: tuple[str, ...]) -> bool:
    """Whether the first frame is `{"type": "auth", "session_api_key": <a valid key>}`."""
    config: ServerConfig = websocket.app.state.config
    try:
        raw = await asyncio.wait_for(websocket.receive_text(), timeout=config.socket_auth_timeout)
        data = json.loads(raw)
    except (TimeoutError, ValueError, KeyError, RuntimeError, WebSocketDisconnect):
        return False
    if not isinstance(data, dict) or data.get("type") != "auth":
        return False
    given = data.get(API_KEY_QUERY)
    return isinstance(given, str) and key_matches(given, keys)


async def _close(websocket: WebSocket, code: int, reason: str) -> None:
    with contextlib.suppress(Exception):
        await websocket.close(code=code, reason=reason[:120])


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


async def _serve(
    websocket: WebSocket, subscription: Subscription, conversation: LiveConversation
) -> None:
    sender = asyncio.create_task(_send_events(websocket, subscription, conversation))
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


async def _send_events(
    websocket: WebSocket, subscription: Subscription, conversation: LiveConversation
) -> None:
    await websocket.send_text(_snapshot(conversation))
    async for batch in subscription.batches():
        for event in batch:
            await websocket.send_text(event.model_dump_json())
        if any(_ends_a_run(event) for event in batch):
            await websocket.send_text(_snapshot(conversation))
        elif not batch and conversation.between_runs:
            # A reminder (LiveConversation.remind_run_ended), still true when it is sent.
            await websocket.send_text(_snapshot(conversation))


def _ends_a_run(event: Event) -> bool:
    return (
        isinstance(event, ConversationStateUpdateEvent)
        and event.key == "execution_status"
        and event.value != ConversationExecutionStatus.RUNNING.value
    )


def _snapshot(conversation: LiveConversation) -> str:
    """A `full_state` frame: the conversation as GET /{id} answers it, never stored.

    Sent first on every socket and after every run ends, as the reference server does: its
    clients wait for the first to call the socket ready and take a later one (with a status
    other than running) as the end of a run. This SDK's client skips these frames.
    """
    info = conversation.info().model_dump(mode="json")
    return ConversationStateUpdateEvent(key=FULL_STATE_KEY, value=info).model_dump_json()


async def _drain(websocket: WebSocket) -> None:
    """Read (and ignore) client frames so a disconnect is noticed at once."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
