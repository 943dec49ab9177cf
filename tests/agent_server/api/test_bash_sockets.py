"""/sockets/bash-events streams the server's commands and their output while they run."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from ..harness import WAIT_TIMEOUT, ServerProcess

pytestmark = pytest.mark.slow

KEY = "bash-socket-key"


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("bash-socket")
    process = ServerProcess(root / "conversations", env={"OH_SESSION_API_KEYS": KEY}).start()
    yield process
    process.stop()


def open_socket(server: ServerProcess, query: str = "", key: str | None = KEY) -> ClientConnection:
    headers = {"X-Session-API-Key": key} if key else {}
    url = f"ws://127.0.0.1:{server.port}/sockets/bash-events{query}"
    return connect(url, additional_headers=headers, open_timeout=10)


def frames_until(
    socket: ClientConnection, done: Callable[[dict[str, Any]], bool]
) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    while True:
        frame = json.loads(socket.recv(timeout=WAIT_TIMEOUT))
        seen.append(frame)
        if done(frame):
            return seen


def run_over(socket: ClientConnection, command: str) -> list[dict[str, Any]]:
    """Send `command` on the socket; the frames of that command, up to its end."""
    socket.send(json.dumps({"command": command}))
    started = frames_until(socket, lambda f: f.get("command") == command)[-1]
    assert started["kind"] == "BashCommand"
    ended = frames_until(
        socket, lambda f: f.get("command_id") == started["id"] and f.get("exit_code") is not None
    )
    return [started, *(f for f in ended if f.get("command_id") == started["id"])]


def test_output_arrives_while_the_command_runs(keyed: ServerProcess, tmp_path: Path) -> None:
    gate = tmp_path / "go"
    script = f"echo first; while [ ! -e {gate} ]; do sleep 0.02; done; echo second"
    with open_socket(keyed) as socket, keyed.client() as client:
        command = client.post(
            "/api/bash/start_bash_command", json={"command": script, "cwd": str(tmp_path)}
        ).json()
        mine = lambda f: f.get("id") == command["id"] or f.get("command_id") == command["id"]  # noqa: E731
        early = frames_until(socket, lambda f: mine(f) and "first" in (f.get("stdout") or ""))
        assert next(f["kind"] for f in early if mine(f)) == "BashCommand"
        assert early[-1]["exit_code"] is None
        gate.touch()
        rest = frames_until(socket, lambda f: mine(f) and f.get("exit_code") is not None)
        outputs = [f for f in early + rest if mine(f) and f["kind"] == "BashOutput"]
        assert "".join(f["stdout"] or "" for f in outputs) == "first\nsecond\n"
        assert rest[-1]["exit_code"] == 0


def test_a_command_sent_on_the_socket_runs_and_a_bad_one_gets_a_bash_error(
    keyed: ServerProcess,
) -> None:
    with open_socket(keyed) as socket:
        frames = run_over(socket, "echo via-socket")
        assert "via-socket" in "".join(f.get("stdout") or "" for f in frames)
        socket.send(json.dumps({"command": "", "timeout": 0}))
        error = frames_until(socket, lambda f: f.get("kind") == "BashError")[-1]
        assert error["code"] == "ValidationError" and "command" in error["detail"]


def test_resend_all_replays_the_kept_events(keyed: ServerProcess) -> None:
    with keyed.client() as client:
        done = client.post("/api/bash/execute_bash_command", json={"command": "echo kept"}).json()
    with open_socket(keyed, "?resend_mode=all") as socket:
        frames = frames_until(socket, lambda f: f.get("id") == done["id"])
        assert any(f["kind"] == "BashCommand" for f in frames)


def test_the_key_is_required_and_may_come_as_a_first_frame(keyed: ServerProcess) -> None:
    with pytest.raises(Exception) as refused:
        open_socket(keyed, key="wrong")
    assert "401" in str(refused.value)
    with open_socket(keyed, key=None) as socket:
        socket.send(json.dumps({"type": "auth", "session_api_key": KEY}))
        frames = run_over(socket, "echo authed")
        assert "authed" in "".join(f.get("stdout") or "" for f in frames)
    with open_socket(keyed, key=None) as socket:
        socket.send(json.dumps({"type": "auth", "session_api_key": "wrong"}))
        with pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=WAIT_TIMEOUT)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001


def test_the_server_wide_search_sees_socket_commands(keyed: ServerProcess) -> None:
    with open_socket(keyed) as socket:
        frames = run_over(socket, "echo searched")
    with httpx.Client(base_url=keyed.url, headers={"X-Session-API-Key": KEY}) as client:
        found = client.get(f"/api/bash/bash_events/{frames[0]['id']}")
        assert found.json()["command"] == "echo searched"
