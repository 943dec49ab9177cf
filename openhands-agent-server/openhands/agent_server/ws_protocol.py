"""The WebSocket protocol uvicorn runs: websockets-sansio, minus a false ERROR on refusals.

A socket refused with an HTTP answer (401 key, 404 conversation, 400 `after`) made uvicorn
0.54's websockets-sansio protocol log "ERROR: ASGI callable returned without completing
handshake." for every refusal: it never marks the handshake done after a denial response,
though the client got its answer (Kludex/uvicorn#3138, open). Any client could fill the
log with errors, and log-based alerts fired on every wrong key.
"""

from __future__ import annotations

from uvicorn._types import ASGISendEvent
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class DenialAwareWebSocketProtocol(WebSocketsSansIOProtocol):
    """websockets-sansio that counts a sent denial response as the end of the handshake."""

    async def send(self, message: ASGISendEvent) -> None:
        """Send as uvicorn does; once a denial's last body chunk is out, the handshake is over."""
        await super().send(message)
        if message["type"] == "websocket.http.response.body" and not message.get(
            "more_body", False
        ):
            # The same thing uvicorn does when the connection is lost (and wsproto on refusal).
            self.handshake_complete = True
