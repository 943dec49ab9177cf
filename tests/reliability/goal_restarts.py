"""Helpers for tests that kill -9 an agent server mid-goal and restart it on the same folder.

The fake LLM server requires the keys the conversation was created with (`AGENT_KEY` for the
agent's model, `JUDGE_KEY` for the judge's), and no server gets LLM_API_KEY: a call after a
restart succeeds only if the server unsealed the key the client sent.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
from agent_server.harness import EventSocket, ServerProcess, llm_spec, wait_until
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from websockets.exceptions import ConnectionClosed

AGENT_KEY = "sk-agent-sealed-5d1f0c9e2b"
"""The agent LLM's key, sent only in the create request."""
JUDGE_KEY = "sk-judge-sealed-8a4e7b3f61"
"""The judge LLM's key, sent only in POST /goal."""

HELD = 30.0
"""Seconds a held phase (an LLM reply, a command) lasts: far longer than until the kill."""


def keyed_models(fake: FakeOpenAIServer, agent_model: str, judge_model: str) -> None:
    """Make the fake server answer 401 unless each model's calls carry its key."""
    fake.require_api_key(AGENT_KEY, model=agent_model)
    fake.require_api_key(JUDGE_KEY, model=judge_model)


def create_conversation(
    server: ServerProcess,
    fake: FakeOpenAIServer,
    model: str,
    *,
    tools: tuple[str, ...] = (),
    **extra: Any,
) -> str:
    """A conversation whose agent LLM carries AGENT_KEY (sent in this request only)."""
    agent = {
        "kind": "Agent",
        "llm": llm_spec(fake, model, api_key=AGENT_KEY),
        "tools": [{"name": name} for name in tools],
    }
    body = {"agent": agent, **extra}
    with server.client() as http:
        response = http.post("/api/conversations", json=body)
    assert response.status_code == 201, response.text
    return response.json()["id"]


def judge_spec(fake: FakeOpenAIServer, model: str) -> dict[str, Any]:
    """A judge LLM carrying JUDGE_KEY (sent in POST /goal only)."""
    return llm_spec(fake, model, api_key=JUDGE_KEY)


class Phase:
    """Replies for before the kill (one may hold a phase open) and for after it."""

    def __init__(self) -> None:
        self.released = threading.Event()

    def release(self) -> None:
        """From now on every responder answers its `after` reply."""
        self.released.set()

    def replies(self, before: FakeReply, after: FakeReply) -> Callable[[dict[str, Any]], FakeReply]:
        """A responder answering `before` until `release()`, then `after`."""

        def respond(_: dict[str, Any]) -> FakeReply:
            return after if self.released.is_set() else before

        return respond


class SocketRecorder:
    """Every event a WebSocket client receives, read in a thread until the socket drops."""

    def __init__(self, socket: EventSocket) -> None:
        self.socket = socket
        self.events: list[dict[str, Any]] = []
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while True:
            try:
                self.events.append(self.socket.next(timeout=120))
            except (ConnectionClosed, TimeoutError, OSError):
                return

    def stop(self) -> list[dict[str, Any]]:
        """Wait for the socket to drop (the server was killed); the events received."""
        self._thread.join(timeout=30)
        assert not self._thread.is_alive(), "the socket outlived the server"
        return list(self.events)


def read_log(server: ServerProcess, cid: str) -> list[dict[str, Any]]:
    """Every event of the conversation, in log order, read page by page over REST."""
    events: list[dict[str, Any]] = []
    page_id = None
    with server.client() as http:
        while True:
            params = {"limit": 100, **({"page_id": page_id} if page_id else {})}
            response = http.get(f"/api/conversations/{cid}/events/search", params=params)
            assert response.status_code == 200, response.text
            page = response.json()
            events += page["items"]
            page_id = page["next_page_id"]
            if not page_id:
                return events


def assert_each_seen_event_kept_once_in_order(
    seen: list[dict[str, Any]], log: list[dict[str, Any]]
) -> None:
    """Each event a client saw is in the log exactly once, in the order it was seen."""
    log_ids = [event["id"] for event in log]
    duplicated = [eid for eid, count in Counter(log_ids).items() if count > 1]
    assert not duplicated, f"the log holds these events twice: {duplicated}"
    seen_ids = [event["id"] for event in seen]
    assert len(set(seen_ids)) == len(seen_ids), "the socket delivered an event twice"
    missing = [eid for eid in seen_ids if eid not in log_ids]
    assert not missing, f"events a client saw are gone from the log: {missing}"
    positions = [log_ids.index(eid) for eid in seen_ids]
    assert positions == sorted(positions), "the log holds the seen events in another order"


def goal(server: ServerProcess, cid: str) -> dict[str, Any] | None:
    """GET /goal."""
    with server.client() as http:
        return http.get(f"/api/conversations/{cid}/goal").json()


def boot_id(server: ServerProcess) -> str:
    """The server's boot id."""
    with server.client() as http:
        return http.get("/server_info").json()["boot_id"]


def files_holding(root: Path, secret: str) -> list[Path]:
    """Every file under `root` whose bytes contain `secret`."""
    needle = secret.encode()
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def wait_gone(pid: int, timeout: float = 15.0) -> None:
    """Wait until process `pid` is gone (or a zombie); fail after `timeout` seconds."""

    def gone() -> bool:
        try:
            return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return True

    try:
        wait_until(gone, timeout, what=f"process {pid} to end")
    except AssertionError:
        psutil.Process(pid).kill()
        raise
