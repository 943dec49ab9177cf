"""Session API keys: which paths need one, and the constant-time comparison.

`EdgeGuard` (edge/guard.py) checks the key of every HTTP request before a route runs and
before any body is read; WebSockets check it themselves (api/sockets.py), since browsers
can only send it as a query parameter there and the reference's clients send it as the
socket's first frame.
"""

from __future__ import annotations

import hmac

from fastapi import WebSocket

API_KEY_HEADER = "X-Session-API-Key"
API_KEY_QUERY = "session_api_key"
"""Browsers cannot set headers on a WebSocket, so sockets also accept this query parameter."""

MISSING_KEY_MESSAGE = f"Missing or invalid {API_KEY_HEADER} header."

OPEN_PATHS = frozenset({"/health", "/alive", "/ready", "/", "/openapi.json", "/docs"})
"""Paths anyone may GET without a key: probes, the web page and the API description."""
OPEN_PREFIXES = ("/static/", "/docs/")
"""Folders of static files (the page's scripts and styles, Swagger UI's)."""

OWN_KEY_PATHS = frozenset({"/api/init"})
"""Paths that check a key of their own instead: /api/init takes the bootstrap key
(X-Init-API-Key), since a dormant server has no session keys yet."""

BEARER_PREFIX = "/v1/"
"""The OpenAI-compatible routes, which also take the session key as `Authorization: Bearer`
(the header every OpenAI client sends its API key in)."""


def needs_key(path: str) -> bool:
    """Whether an HTTP request for `path` needs a session key (when keys are configured)."""
    return (
        path not in OPEN_PATHS and path not in OWN_KEY_PATHS and not path.startswith(OPEN_PREFIXES)
    )


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header value, or None."""
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


class SessionKeys:
    """The session keys in force: the configured ones, or those POST /api/init delivered."""

    def __init__(self, keys: tuple[str, ...]) -> None:
        self.keys = keys


def key_matches(given: str | None, keys: tuple[str, ...]) -> bool:
    """True when no keys are configured or `given` equals one of them (constant time)."""
    if not keys:
        return True
    if not given:
        return False
    supplied = given.encode()
    # Compare against every key so the time taken does not reveal which one matched.
    matched = False
    for key in keys:
        matched |= hmac.compare_digest(supplied, key.encode())
    return matched


def presented_key(websocket: WebSocket) -> str | None:
    """The key a WebSocket carries in its header or `session_api_key` query parameter."""
    return websocket.headers.get(API_KEY_HEADER) or websocket.query_params.get(API_KEY_QUERY)


def websocket_authorized(websocket: WebSocket) -> bool:
    """Whether a WebSocket carries a valid key (header or `session_api_key` query parameter)."""
    keys: tuple[str, ...] = websocket.app.state.config.session_api_keys
    return key_matches(presented_key(websocket), keys)
