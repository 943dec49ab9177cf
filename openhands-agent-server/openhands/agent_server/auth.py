"""Session API key checks for REST routes and WebSockets (constant-time comparison)."""

from __future__ import annotations

import hmac

from fastapi import HTTPException, Request, WebSocket, status

API_KEY_HEADER = "X-Session-API-Key"
API_KEY_QUERY = "session_api_key"
"""Browsers cannot set headers on a WebSocket, so sockets also accept this query parameter."""


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


async def require_api_key(request: Request) -> None:
    """FastAPI dependency: reject a REST call without a valid X-Session-API-Key (401)."""
    keys: tuple[str, ...] = request.app.state.config.session_api_keys
    if not key_matches(request.headers.get(API_KEY_HEADER), keys):
        raise HTTPException(
            status_code=status.HTTP_401_UNAUTHORIZED,
            detail=f"Missing or invalid {API_KEY_HEADER} header.",
        )


def websocket_authorized(websocket: WebSocket) -> bool:
    """Whether a WebSocket carries a valid key (header or `session_api_key` query parameter)."""
    keys: tuple[str, ...] = websocket.app.state.config.session_api_keys
    given = websocket.headers.get(API_KEY_HEADER) or websocket.query_params.get(API_KEY_QUERY)
    return key_matches(given, keys)
