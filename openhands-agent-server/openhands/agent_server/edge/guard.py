"""`EdgeGuard`: the ASGI middleware every request passes first.

In order, before any route runs and before any body byte is read:

1. Host must name this server (421 otherwise): no DNS rebinding.
2. A state-changing request (any method but GET, HEAD, OPTIONS) or a WebSocket with an
   Origin header must come from this server's origin or `OH_ALLOWED_ORIGINS` (403): no CSRF.
3. The session key, for every HTTP path but the open ones (401); the /v1 routes also take it
   as `Authorization: Bearer` (OpenAI clients).
4. A Content-Length over `OH_MAX_BODY_BYTES` (413); a body without one is counted while it
   streams and refused (413) the moment it passes the cap; a body that pauses longer than
   `OH_HTTP_BODY_TIMEOUT_SECONDS` is answered 408.

Every HTTP answer, refused or not, gets the security headers (edge/headers.py). It is plain
ASGI (no per-request objects beyond two closures) because every call pays for it.
"""

from __future__ import annotations

import json

from openhands.agent_server.auth import (
    BEARER_PREFIX,
    MISSING_KEY_MESSAGE,
    SessionKeys,
    bearer_token,
    key_matches,
    needs_key,
)
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.edge.body_limit import (
    BodyTimeoutError,
    BodyTooLargeError,
    capped,
    declared_too_large,
    too_large_message,
)
from openhands.agent_server.edge.error_handlers import send_error
from openhands.agent_server.edge.headers import SECURITY_HEADERS
from openhands.agent_server.edge.trust import RequestTrust
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods a page may send from any origin (they change nothing; CORS keeps answers private)."""


def bad_host_message(host: bytes) -> str:
    """What a request whose Host does not name this server is told."""
    shown = host.decode("latin-1")[:100]
    return (
        f"Host {shown!r} does not name this server, so the request was refused (a web page "
        "may be using DNS rebinding to reach it). If this is your name for the server, add "
        "it to OH_ALLOWED_HOSTS (comma separated, no port)."
    )


def bad_origin_message(origin: bytes) -> str:
    """What a cross-origin state-changing request or socket is told."""
    shown = origin.decode("latin-1")[:100]
    return (
        f"Requests from the page at {shown!r} may not change this server's state or open "
        "its sockets (cross-site request). If that page is yours, add its origin to "
        "OH_ALLOWED_ORIGINS (e.g. https://app.example.com)."
    )


class EdgeGuard:
    """Refuses requests from the wrong Host or Origin, without a key, or with a body too big."""

    def __init__(self, app: ASGIApp, config: ServerConfig, keys: SessionKeys | None = None) -> None:
        """`keys`: the session keys in force, if they may change (a dormant server's init)."""
        self.app = app
        self.trust = RequestTrust(config)
        self.keys = keys or SessionKeys(config.session_api_keys)
        self.max_body = config.max_body_bytes
        self.body_pause = config.http_body_timeout_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the request, then run the app with a capped body and secured headers."""
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)
        else:  # lifespan
            await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = origin = key = length = authorization = None
        for name, value in scope["headers"]:
            if name == b"host":
                host = value
            elif name == b"origin":
                origin = value
            elif name == b"x-session-api-key":
                key = value
            elif name == b"content-length":
                length = value
            elif name == b"authorization":
                authorization = value
        refusal = self._refusal(
            scope, host, origin if scope["method"] not in SAFE_METHODS else None
        )
        keys = self.keys.keys
        path = scope["path"]
        if (
            refusal is None
            and keys
            and needs_key(path)
            and not key_matches(key.decode("latin-1") if key else None, keys)
            and not (
                path.startswith(BEARER_PREFIX)
                and authorization is not None
                and key_matches(bearer_token(authorization.decode("latin-1")), keys)
            )
        ):
            refusal = (401, MISSING_KEY_MESSAGE)
        if refusal is None and declared_too_large(length, self.max_body):
            refusal = (413, too_large_message(self.max_body))
        if refusal is not None:
            await send_error(send, *refusal, headers=SECURITY_HEADERS)
            return

        started = False

        async def secured_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message["headers"] = [*message.get("headers", ()), *SECURITY_HEADERS]
            await send(message)

        try:
            limited = (
                capped(receive, self.max_body, self.body_pause)
                if self.max_body or self.body_pause
                else receive
            )
            await self.app(scope, limited, secured_send)
        except (BodyTooLargeError, BodyTimeoutError) as exc:
            # Normally the app's HTTPException handler answers it; this covers routes that
            # read the body outside of it.
            if started:
                raise
            await send_error(send, exc.status_code, exc.detail, headers=SECURITY_HEADERS)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = origin = None
        for name, value in scope["headers"]:
            if name == b"host":
                host = value
            elif name == b"origin":
                origin = value
        refusal = self._refusal(scope, host, origin)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        await _deny_socket(scope, receive, send, *refusal)

    def _refusal(
        self, scope: Scope, host: bytes | None, origin: bytes | None
    ) -> tuple[int, str] | None:
        """(status, message) when Host or Origin is not acceptable, else None."""
        if not self.trust.host_allowed(host):
            return 421, bad_host_message(host or b"")
        if origin is not None and not self.trust.origin_allowed(origin, host, scope["scheme"]):
            return 403, bad_origin_message(origin)
        return None


async def _deny_socket(
    scope: Scope, receive: Receive, send: Send, status: int, message: str
) -> None:
    """Refuse a WebSocket handshake with an HTTP answer (or a close code if unsupported)."""
    await receive()  # websocket.connect
    if "websocket.http.response" in scope.get("extensions", {}):
        body = json.dumps({"message": message, "detail": message}).encode()
        await send(
            {
                "type": "websocket.http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 4000 + status, "reason": message[:120]})
