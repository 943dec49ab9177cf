"""`DormantGate`: while a warm-pool server waits for POST /api/init, only probes get through.

With OH_DEFERRED_INIT the server starts without its services (no conversations, no stores:
they need the configuration the init delivers). Until the init has made it ready, every
request but /health, /alive, /api/init, the web page, /docs and the static files is
answered 503 saying to call POST /api/init; WebSockets are refused the same way.
"""

from __future__ import annotations

from openhands.agent_server.auth import OPEN_PATHS, OPEN_PREFIXES, OWN_KEY_PATHS
from openhands.agent_server.edge.error_handlers import send_error
from openhands.agent_server.services.warm_start import WarmStart
from starlette.types import ASGIApp, Receive, Scope, Send

THROUGH_PATHS = OPEN_PATHS | OWN_KEY_PATHS
"""Paths answered while dormant: probes, the init route, the page and the API description."""


def dormant_message(state: str) -> str:
    """What a request to a server that is not ready yet is told."""
    return (
        f"The server is {state}: it was started with OH_DEFERRED_INIT and has no configuration "
        "yet. Call POST /api/init (header X-Init-API-Key) first; GET /api/init shows its state."
    )


class DormantGate:
    """Answers 503 for every route but the probes and /api/init until the init is done."""

    def __init__(self, app: ASGIApp, warm_start: WarmStart) -> None:
        self.app = app
        self.warm_start = warm_start

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on once ready (or for a path answered while dormant)."""
        kind = scope["type"]
        if kind == "lifespan" or self.warm_start.ready:
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if kind == "http" and (path in THROUGH_PATHS or path.startswith(OPEN_PREFIXES)):
            await self.app(scope, receive, send)
            return
        message = dormant_message(self.warm_start.state)
        if kind == "websocket":
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 4503, "reason": message[:120]})
            return
        await send_error(send, 503, message)  # the guard around it adds the security headers
