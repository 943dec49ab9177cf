"""WebSocket /sockets/bash-events: the server's `/api/bash` commands and outputs as they come.

The reference's socket: every `BashCommand` and `BashOutput` recorded from now on, one JSON
text frame each (`resend_mode=all`, or the older `resend_all=true`, first sends the kept
ones), so a client sees a command's output while it runs without polling. A frame the
client sends is an `ExecuteCommandRequest`: that command is started (server-wide rules: the
sandbox of its folder); a bad one is answered with a `BashError` frame
`{kind, id, timestamp, code, detail}`. The key comes in a header, the query, or as a first
frame `{"type": "auth", "session_api_key": ...}` (the reference's clients); a bad first-frame
key closes with 4001.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from datetime import UTC, datetime

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse
from openhands.agent_server.api.bash import server_command
from openhands.agent_server.auth import (
    API_KEY_HEADER,
    API_KEY_QUERY,
    key_matches,
    presented_key,
    websocket_authorized,
)
from openhands.agent_server.errors import ServerError
from openhands.agent_server.services.bash_events import BashEvents
from openhands.sdk.wire import ExecuteCommandRequest
from pydantic import ValidationError

router = APIRouter(tags=["bash"])

AUTH_FAILED_CLOSE_CODE = 4001


@router.websocket("/sockets/bash-events")
async def bash_events_socket(
    websocket: WebSocket, resend_mode: str | None = None, resend_all: str | None = None
) -> None:
    """Stream the bash events (see the module docstring)."""
    keys: tuple[str, ...] = websocket.app.state.config.session_api_keys
    first_frame_auth = bool(keys) and not presented_key(websocket)
    if not first_frame_auth and not websocket_authorized(websocket):
        await _deny(websocket, 401, f"Missing or invalid {API_KEY_HEADER}.")
        return
    if resend_mode not in (None, "all"):
        await _deny(websocket, 400, "resend_mode: give `all`, or leave it out")
        return
    await websocket.accept()
    if first_frame_auth and not await _first_frame_authenticates(websocket, keys):
        with contextlib.suppress(Exception):
            await websocket.close(code=AUTH_FAILED_CLOSE_CODE, reason="Authentication failed")
        return
    commands: BashEvents = websocket.app.state.bash_events
    replay = resend_mode == "all" or (resend_all or "").lower() in ("1", "true", "yes", "on")
    sender = asyncio.create_task(_send(websocket, commands, replay))
    receiver = asyncio.create_task(_receive(websocket))
    try:
        await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (sender, receiver):
            task.cancel()
        await asyncio.gather(sender, receiver, return_exceptions=True)


async def _send(websocket: WebSocket, commands: BashEvents, replay: bool) -> None:
    async for event in commands.follow(replay=replay):
        await websocket.send_text(event.model_dump_json())


async def _receive(websocket: WebSocket) -> None:
    """Start each command the client sends; answer a bad one with a BashError frame."""
    while True:
        try:
            raw = await websocket.receive_text()
        except (WebSocketDisconnect, RuntimeError):
            return
        try:
            data = json.loads(raw)
            if isinstance(data, dict) and data.get("type") == "auth":
                continue  # a client that authenticates by frame although it sent a header
            request = ExecuteCommandRequest.model_validate(data)
            server_command(websocket, request)
        except (ValueError, ValidationError, ServerError) as exc:
            await websocket.send_text(_error(exc))


def _error(exc: Exception) -> str:
    detail = exc.message if isinstance(exc, ServerError) else str(exc)
    return json.dumps(
        {
            "kind": "BashError",
            "id": uuid.uuid4().hex,
            "timestamp": datetime.now(UTC).isoformat(),
            "code": type(exc).__name__,
            "detail": detail,
        }
    )


async def _first_frame_authenticates(websocket: WebSocket, keys: tuple[str, ...]) -> bool:
    timeout = websocket.app.state.config.socket_auth_timeout
    try:
        data = json.loads(await asyncio.wait_for(websocket.receive_text(), timeout=timeout))
    except (TimeoutError, ValueError, RuntimeError, WebSocketDisconnect):
        return False
    if not isinstance(data, dict) or data.get("type") != "auth":
        return False
    given = data.get(API_KEY_QUERY)
    return isinstance(given, str) and key_matches(given, keys)


async def _deny(websocket: WebSocket, status: int, message: str) -> None:
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        body = {"message": message, "detail": message}
        await websocket.send_denial_response(JSONResponse(body, status_code=status))
    else:
        await websocket.close(code=4000 + status, reason=message[:120])
