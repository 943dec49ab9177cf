"""ServerClient against a peer that breaks connections: reads go again, writes never do."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator

import pytest
from openhands.sdk.remote.errors import RemoteConnectionError
from openhands.sdk.remote.transport import ServerClient

ANSWER = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n"
    b'Connection: close\r\n\r\n{"ok": true}'
)


class BreakingPeer:
    """A TCP server on 127.0.0.1 that resets its first `broken` connections once it has read
    their request (what a server closing a kept-alive connection looks like to the client),
    then answers 200."""

    def __init__(self, broken: int) -> None:
        self.broken = broken
        self.requests: list[bytes] = []
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with conn:
                self.requests.append(conn.recv(65536))
                if len(self.requests) <= self.broken:
                    # SO_LINGER 0: close() sends a reset, as a peer that dropped the socket does
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                else:
                    conn.sendall(ANSWER)

    def close(self) -> None:
        self._sock.close()


@pytest.fixture
def peer() -> Iterator[BreakingPeer]:
    made = BreakingPeer(broken=1)
    yield made
    made.close()


def test_a_read_whose_connection_was_reset_is_sent_again_once(peer: BreakingPeer) -> None:
    client = ServerClient(peer.url, None)
    try:
        assert client.request("GET", "/api/conversations/x") == {"ok": True}
    finally:
        client.close()
    assert [r.split(b" ")[0] for r in peer.requests] == [b"GET", b"GET"]


def test_a_write_whose_connection_was_reset_is_not_sent_twice(peer: BreakingPeer) -> None:
    client = ServerClient(peer.url, None)
    try:
        with pytest.raises(
            RemoteConnectionError, match=r"(ReadError|RemoteProtocolError) on POST /api/x"
        ):
            client.request("POST", "/api/x", json={"a": 1})
    finally:
        client.close()
    assert len(peer.requests) == 1


def test_a_read_that_keeps_failing_is_a_connection_error_not_an_httpx_one() -> None:
    peer = BreakingPeer(broken=5)
    client = ServerClient(peer.url, None)
    try:
        with pytest.raises(RemoteConnectionError, match="Cannot reach the agent server"):
            client.request("GET", "/health")
    finally:
        client.close()
        peer.close()
    assert len(peer.requests) == 2
