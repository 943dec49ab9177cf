"""Errors over real HTTP: a 500 leaves the keep-alive connection usable; disk errors are 507/503.

The failing routes exist only in this test: the app is the server's own `create_app`, plus
routes that raise, run under uvicorn on a free port.
"""

from __future__ import annotations

import errno
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi import FastAPI, Request
from openhands.agent_server.app import create_app
from openhands.agent_server.config import ServerConfig
from openhands.sdk.errors import storage_error
from ports import free_port


def failing_app(root: Path) -> FastAPI:
    """The server's app with three extra routes: a bug, a full disk, a broken disk."""
    config = ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(root / "conversations"),
            "OH_WORKSPACE_PATH": str(root / "workspaces"),
            "OH_PRELOAD_LITELLM": "false",
        }
    )
    app = create_app(config)

    @app.get("/test/peer")
    async def peer(request: Request) -> int:
        assert request.client is not None
        return request.client.port  # tells which connection carried the request

    @app.get("/test/bug")
    async def bug() -> None:
        raise RuntimeError("a bug in a route")

    @app.post("/test/disk-full")
    async def disk_full() -> None:
        cause = OSError(errno.ENOSPC, "No space left on device")
        raise storage_error("append to", root / "events.jsonl", cause)

    @app.post("/test/disk-broken")
    async def disk_broken() -> None:
        raise storage_error("append to", root / "events.jsonl", OSError(errno.EIO, "I/O error"))

    return app


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The failing app served by uvicorn in a thread; its base URL."""
    port = free_port()
    app = failing_app(tmp_path_factory.mktemp("http-errors"))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=15)


def test_a_500_keeps_the_connection_usable_for_the_next_request(url: str) -> None:
    with httpx.Client(base_url=url) as client:
        before = client.get("/test/peer").json()
        failed = client.get("/test/bug")
        assert failed.status_code == 500
        assert "RuntimeError" in failed.json()["message"]
        after = client.get("/test/peer")
        assert after.status_code == 200
        assert after.json() == before  # the same connection: the server did not drop it


def test_a_500_answer_is_json_with_the_security_headers(url: str) -> None:
    response = httpx.get(f"{url}/test/bug")
    assert response.json()["detail"] == response.json()["message"]
    assert response.headers["x-content-type-options"] == "nosniff"


def test_full_disk_is_507_naming_the_cause_and_the_fix(url: str) -> None:
    response = httpx.post(f"{url}/test/disk-full")
    assert response.status_code == 507
    message = response.json()["message"]
    assert "storage is full" in message
    assert "No space left on device" in message
    assert "free disk space" in message


def test_other_storage_errors_are_503_naming_the_cause(url: str) -> None:
    response = httpx.post(f"{url}/test/disk-broken")
    assert response.status_code == 503
    message = response.json()["message"]
    assert "storage failed" in message
    assert "I/O error" in message


def test_storage_errors_keep_the_connection_usable(url: str) -> None:
    with httpx.Client(base_url=url) as client:
        before = client.get("/test/peer").json()
        assert client.post("/test/disk-full").status_code == 507
        assert client.get("/test/peer").json() == before
