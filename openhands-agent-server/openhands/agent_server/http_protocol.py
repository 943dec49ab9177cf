"""The HTTP protocol uvicorn runs: h11, with a bound on open connections and request deadlines.

uvicorn alone lets a client hold a connection forever without sending a request (its
keep-alive timer only starts after a response), and accepts connections until the process
runs out of descriptors: then nobody gets in (`/health` included) and every accept attempt
logs a traceback. This protocol adds, per connection:

- a deadline for the request line and headers (`OH_HTTP_HEADER_TIMEOUT_SECONDS`), armed when
  the connection opens and after each response, so a silent or slow-headers client
  (slowloris) is closed;
- a bound on open connections (`OH_MAX_CONNECTIONS`, and at most half of the process's
  descriptor limit): a connection beyond it makes room by closing the connection that has
  been idle longest (no request in progress); if every connection is busy, the new one is
  answered `503` at once and closed, without reaching the app.

WebSockets count as busy connections (they are never closed to make room).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
from typing import ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

MIN_CONNECTIONS = 16
"""The bound never goes below this, however low the descriptor limit."""

OVERLOAD_MESSAGE = (
    "The server holds as many connections as it may (OH_MAX_CONNECTIONS) and all of them are "
    "busy; retry in a moment."
)


def connection_bound(configured: int) -> int:
    """The effective bound: `configured`, but at most half of the descriptor limit (the rest
    is for logs, child processes and pipes)."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return configured
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return configured
    return max(MIN_CONNECTIONS, min(configured, soft // 2))


def overload_response() -> bytes:
    """The complete HTTP/1.1 503 answer to a connection the server has no room for."""
    body = json.dumps({"message": OVERLOAD_MESSAGE, "detail": OVERLOAD_MESSAGE}).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "retry-after: 1\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode() + body


class GuardedHTTPProtocol(H11Protocol):
    """uvicorn's h11 protocol with a request deadline and a bound on open connections.

    Configure the class before uvicorn starts (`configure`); uvicorn makes one instance per
    connection.
    """

    max_connections: ClassVar[int] = 1000
    header_timeout: ClassVar[float] = 10.0

    @classmethod
    def configure(cls, *, max_connections: int, header_timeout: float) -> type[GuardedHTTPProtocol]:
        """A subclass with these limits (the effective connection bound applied)."""
        return type(
            cls.__name__,
            (cls,),
            {
                "max_connections": connection_bound(max_connections),
                "header_timeout": header_timeout,
            },
        )

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Track the connection, arm its header deadline, and keep within the bound."""
        super().connection_made(transport)
        self.idle_since = self.loop.time()
        self._header_deadline: asyncio.TimerHandle | None = None
        self._arm_header_deadline()
        if len(self.connections) > self.max_connections and not self._make_room():
            self._refuse()

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the deadline with the connection."""
        self._cancel_header_deadline()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        """Parse as uvicorn does; a request that started has met its header deadline."""
        super().handle_events()
        if self.cycle is not None and not self.cycle.response_complete:
            self._cancel_header_deadline()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        """Hand the connection to the WebSocket protocol; its deadline is no longer ours."""
        self._cancel_header_deadline()
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        """After each response the next request has a header deadline again."""
        super().on_response_complete()
        self.idle_since = self.loop.time()
        if not self.transport.is_closing():
            self._arm_header_deadline()

    # -- internals --------------------------------------------------------------------------

    @property
    def is_idle(self) -> bool:
        """No request in progress: never sent one, or waiting for the next."""
        return self.cycle is None or self.cycle.response_complete

    def _arm_header_deadline(self) -> None:
        self._cancel_header_deadline()
        if self.header_timeout > 0:
            self._header_deadline = self.loop.call_later(self.header_timeout, self._too_slow)

    def _cancel_header_deadline(self) -> None:
        deadline = getattr(self, "_header_deadline", None)
        if deadline is not None:
            deadline.cancel()
            self._header_deadline = None

    def _too_slow(self) -> None:
        self._header_deadline = None
        if self.is_idle and not self.transport.is_closing():
            self._close()

    def _make_room(self) -> bool:
        """Close the connection idle longest (not this one); False if none is idle."""
        oldest: GuardedHTTPProtocol | None = None
        for connection in self.connections:
            if (
                connection is not self
                and isinstance(connection, GuardedHTTPProtocol)
                and connection.is_idle
                and not connection.transport.is_closing()
                and (oldest is None or connection.idle_since < oldest.idle_since)
            ):
                oldest = connection
        if oldest is None:
            return False
        oldest._close()
        return True

    def _close(self) -> None:
        if self.conn.our_state not in (h11.ERROR, h11.CLOSED, h11.MUST_CLOSE):
            with contextlib.suppress(h11.LocalProtocolError):
                self.conn.send(h11.ConnectionClosed())
        self.transport.close()

    def _refuse(self) -> None:
        self.transport.write(overload_response())
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        """Ignore what a refused connection still sends."""
        if self.transport.is_closing():
            return
        super().data_received(data)
