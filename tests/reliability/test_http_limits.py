"""Body limits on a real server: the key is checked before any body byte, and a body over
OH_MAX_BODY_BYTES is refused while it streams, so no request can inflate the server's memory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from agent_server.harness import ServerProcess

KEY = "limits-key"
BIG = 50 * 1024 * 1024
SMALL_LIMIT = 4096
KEYED_LIMIT = 1024 * 1024
"""The keyed server's cap: far below RSS_GROWTH_BOUND (see `keyed`)."""
RSS_GROWTH_BOUND = 8 * 1024 * 1024
"""How much a refused 50 MB body may grow the server's memory (it must not hold the body)."""


def server(root: Path, **env: str) -> ServerProcess:
    # No background litellm import: it would grow the memory these tests measure.
    return ServerProcess(root / "conversations", env={"OH_PRELOAD_LITELLM": "false", **env})


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with a session key and a 1 MiB body cap.

    A chunked body is read up to the cap before it is refused, and freed memory need not go
    back to the OS (a busy allocator keeps it): with the default 8 MiB cap, a body held
    exactly as designed could reach the 8 MB bound, so the test could fail without a bug.
    With a 1 MiB cap, passing the bound can only mean the server held far more than the cap.
    """
    process = server(
        tmp_path_factory.mktemp("limits"),
        OH_SESSION_API_KEYS=KEY,
        OH_MAX_BODY_BYTES=str(KEYED_LIMIT),
    ).start()
    yield process
    process.stop()


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server without key whose body limit is SMALL_LIMIT bytes."""
    process = server(tmp_path_factory.mktemp("small"), OH_MAX_BODY_BYTES=str(SMALL_LIMIT)).start()
    yield process
    process.stop()


def rss(process: ServerProcess) -> int:
    assert process.process is not None
    return psutil.Process(process.process.pid).memory_info().rss


def chunks(total: int, size: int = 1024 * 1024) -> Iterator[bytes]:
    """A body sent chunked (no Content-Length), `size` bytes at a time."""
    sent = 0
    while sent < total:
        part = min(size, total - sent)
        yield b"x" * part
        sent += part


def test_unauthenticated_50mb_post_is_refused_without_reading_it(keyed: ServerProcess) -> None:
    with keyed.client(api_key="") as client:
        client.get("/health")  # the connection and the server's first-request work, done
        before = rss(keyed)
        response = client.post(
            "/api/conversations",
            content=b"x" * BIG,
            headers={"content-type": "application/json"},
        )
        growth = rss(keyed) - before
    assert response.status_code == 401
    assert growth < RSS_GROWTH_BOUND, f"the server grew by {growth / 1e6:.1f} MB"


def test_authenticated_50mb_chunked_post_is_refused_while_streaming(
    keyed: ServerProcess,
) -> None:
    with keyed.client() as client:
        client.get("/health")
        before = rss(keyed)
        response = client.post(
            "/api/conversations",
            content=chunks(BIG),
            headers={"content-type": "application/json"},
        )
        growth = rss(keyed) - before
    assert response.status_code == 413
    assert growth < RSS_GROWTH_BOUND, f"the server grew by {growth / 1e6:.1f} MB"


def test_declared_length_over_the_limit_is_413_naming_the_setting(small: ServerProcess) -> None:
    with small.client() as client:
        response = client.post("/api/conversations", content=b"{" + b" " * SMALL_LIMIT + b"}")
    assert response.status_code == 413
    assert "OH_MAX_BODY_BYTES" in response.json()["message"]


def test_chunked_body_over_the_limit_is_413(small: ServerProcess) -> None:
    with small.client() as client:
        response = client.post("/api/conversations", content=chunks(SMALL_LIMIT + 1, 1000))
    assert response.status_code == 413
    assert "OH_MAX_BODY_BYTES" in response.json()["message"]


def test_body_within_the_limit_reaches_the_route(small: ServerProcess) -> None:
    with small.client() as client:
        response = client.post("/api/conversations", content=chunks(SMALL_LIMIT, 1000))
    assert response.status_code == 422  # the route read it: not JSON, says which field


def test_connection_is_usable_after_a_413(small: ServerProcess) -> None:
    with small.client() as client:
        assert client.post("/api/conversations", content=chunks(SMALL_LIMIT * 4)).status_code == 413
        assert client.get("/api/conversations/count").status_code == 200


def test_key_is_checked_before_the_body_limit(keyed: ServerProcess) -> None:
    with keyed.client(api_key="") as client:
        response = client.post("/api/conversations", content=chunks(16 * 1024 * 1024))
    assert response.status_code == 401
