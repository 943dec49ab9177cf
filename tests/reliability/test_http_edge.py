"""The HTTP edge stays up: idle connections, slow clients, overload, huge bodies, debug logs.

Real server processes: one with `ulimit -n 256` while 400 idle TCP connections are held (no
key needed to open them) must still answer `/health` and an authenticated request, and must
not fill its log; connections that send nothing are closed; when every connection is busy a
new one is answered 503 at once; a 7 MB body of 500,000 keys is refused without stalling the
server, and a body with thousands of problems gets a short answer; at debug level no key is
written to the log.
"""

from __future__ import annotations

import contextlib
import json
import resource
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from agent_server.harness import ServerProcess, wait_until
from waits import EVENT_WAIT

KEY = "edge-session-key-" + "4" * 24
ANSWER_WITHIN = EVENT_WAIT
"""Client timeout for a request that must be answered (it hung for ever before the fix)."""
CONNECTIONS = 400
FD_LIMIT = 256


def _lower_fd_limit() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, hard))


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    """Servers a test starts; stopped at the end whatever happened."""
    started: list[ServerProcess] = []
    yield started
    for process in started:
        process.stop()


def _start(servers: list[ServerProcess], root: Path, **options: object) -> ServerProcess:
    process = ServerProcess(root / "conversations", **options).start()  # type: ignore[arg-type]
    servers.append(process)
    return process


def _open_idle(server: ServerProcess, count: int) -> list[socket.socket]:
    """TCP connections that send nothing (their handshake completes in the kernel)."""
    held = []
    for _ in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            sock.connect(("127.0.0.1", server.port))
        held.append(sock)
    return held


def test_idle_connections_beyond_the_descriptor_limit_do_not_lock_anyone_out(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < CONNECTIONS + 64:
        pytest.skip("this test process cannot hold 400 connections")
    server = _start(
        servers,
        tmp_path,
        env={"OH_SESSION_API_KEYS": KEY, "OH_HTTP_HEADER_TIMEOUT_SECONDS": "600"},
        preexec_fn=_lower_fd_limit,
    )
    held = _open_idle(server, CONNECTIONS)
    try:
        with httpx.Client(base_url=server.url, timeout=ANSWER_WITHIN) as http:
            health = http.get("/health")
            counted = http.get("/api/conversations/count", headers={"X-Session-API-Key": KEY})
            refused = http.get("/api/conversations/count")
    finally:
        for sock in held:
            sock.close()

    assert health.status_code == 200
    assert counted.status_code == 200 and counted.json() == 0
    assert refused.status_code == 401
    log = server.log()
    assert log.count("Too many open files") <= 2, log[-3000:]
    assert len(log) < 200_000


def test_a_connection_that_sends_nothing_is_closed(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    server = _start(servers, tmp_path, env={"OH_HTTP_HEADER_TIMEOUT_SECONDS": "1"})
    with socket.create_connection(("127.0.0.1", server.port)) as silent:
        silent.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
        silent.settimeout(ANSWER_WITHIN)
        assert silent.recv(1024) == b""  # closed by the server, not answered


def test_when_every_connection_is_busy_a_new_one_gets_503_at_once(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    server = _start(
        servers,
        tmp_path,
        env={"OH_MAX_CONNECTIONS": "20", "OH_HTTP_BODY_TIMEOUT_SECONDS": "600"},
    )
    busy = []
    for _ in range(20):  # requests whose body never ends: busy, never idle
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(
            b"POST /api/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\n"
            b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        )
        # "100 Continue" says the server has read the request and waits for its body: busy.
        # Without this wait a loaded server could take the probe below before reading these,
        # find them idle and close one to make room.
        sock.settimeout(ANSWER_WITHIN)
        assert sock.recv(1024).startswith(b"HTTP/1.1 100 Continue")
        sock.sendall(b"{")
        busy.append(sock)
    try:
        answer = _first_refusal(server)
    finally:
        for sock in busy:
            sock.close()

    assert answer.status_code == 503
    assert "OH_MAX_CONNECTIONS" in answer.json()["message"]
    with httpx.Client(base_url=server.url, timeout=ANSWER_WITHIN) as http:
        assert http.get("/health").status_code == 200  # room again once they are gone


def _first_refusal(server: ServerProcess) -> httpx.Response:
    """GET /health until the server, full of busy connections, refuses one."""

    def attempt() -> httpx.Response | None:
        with httpx.Client(base_url=server.url, timeout=ANSWER_WITHIN) as http:
            answer = http.get("/health")
        return answer if answer.status_code == 503 else None

    return wait_until(attempt, ANSWER_WITHIN, "a 503 for a connection beyond the bound")


def test_half_a_million_keys_are_refused_early_and_the_server_keeps_answering(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    server = _start(servers, tmp_path)
    agent = {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "x"}}
    body = json.dumps({"agent": agent, **{f"k{i:06d}": 1 for i in range(500_000)}}).encode()
    assert len(body) < 8 * 1024 * 1024  # under OH_MAX_BODY_BYTES: only the items are too many
    answers: list[httpx.Response] = []

    def send() -> None:
        with httpx.Client(base_url=server.url, timeout=ANSWER_WITHIN * 4) as http:
            answers.append(
                http.post(
                    "/api/conversations",
                    content=body,
                    headers={"content-type": "application/json"},
                )
            )

    sender = threading.Thread(target=send)
    sender.start()
    with httpx.Client(base_url=server.url, timeout=ANSWER_WITHIN) as http:
        while sender.is_alive():  # the loop answers others while the body is checked
            assert http.get("/health").status_code == 200
    sender.join()

    [answer] = answers
    assert answer.status_code == 413
    assert "OH_MAX_JSON_ITEMS" in answer.json()["message"]
    assert len(answer.content) < 2_000


def test_a_body_with_thousands_of_problems_gets_a_short_answer(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    server = _start(servers, tmp_path)
    agent = {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "x"}}
    with server.client() as http:
        cid = http.post("/api/conversations", json={"agent": agent}).json()["id"]
        parts = [{"type": "no-such-part"}] * 5_000
        answer = http.post(
            f"/api/conversations/{cid}/events", json={"role": "user", "content": parts}
        )

    assert answer.status_code == 422
    assert len(answer.content) < 4_000
    assert len(answer.json()["detail"]) == 10
    assert "more problems" in answer.json()["message"]
    assert answer.json()["detail"][0]["loc"][:3] == ["body", "content", 0]


def test_no_key_reaches_the_log_at_debug_level(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    server = _start(
        servers,
        tmp_path,
        env={"OH_SESSION_API_KEYS": KEY},
        args=("--log-level", "debug"),
    )
    agent = {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "sk-llm-key-in-a-body"}}
    with server.client() as http:
        cid = http.post("/api/conversations", json={"agent": agent}).json()["id"]
        assert http.get("/api/conversations/count", headers={"Authorization": "Bearer tok-9"})
    with server.socket(cid):  # the key in the handshake's header
        pass
    with server.socket(cid, api_key="", session_api_key=KEY):  # and in the query
        pass
    wrong = httpx.get(f"{server.url}/api/conversations/count", headers={"X-Session-API-Key": "w-1"})
    assert wrong.status_code == 401

    log = server.log()
    assert "x-session-api-key" in log.lower(), "the debug log shows no handshake at all"
    for secret in (KEY, "tok-9", "w-1", "sk-llm-key-in-a-body"):
        assert secret not in log
