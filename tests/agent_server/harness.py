"""Helpers for end-to-end tests: a real server subprocess, an event socket, polling."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self, TypeVar

import httpx
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from ports import free_port, start_serving
from server_zygote import ServerChild, start_server
from waits import EVENT_WAIT
from websockets.sync.client import ClientConnection, connect

T = TypeVar("T")

START_TIMEOUT = EVENT_WAIT
WAIT_TIMEOUT = EVENT_WAIT
"""Seconds a wait for an event allows (tests/waits.py says why it is generous)."""


POLL_FIRST = 0.005
POLL_MOST = 0.1
"""`wait_until` polls after 5 ms, then half as long again each time, at most every 100 ms:
an event that comes at once is seen at once, and a long wait (a goal's rounds, a restart)
costs the test and the server ~15 requests a second, not 50 (a poll is often an HTTP GET)."""


def wait_until(check: Callable[[], T | None], timeout: float = WAIT_TIMEOUT, what: str = "") -> T:
    """Poll `check` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    pause = POLL_FIRST
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(pause)
        pause = min(pause * 1.5, POLL_MOST)


def llm_spec(fake: FakeOpenAIServer, model: str, **extra: Any) -> dict[str, Any]:
    """An LLM spec that talks to the fake server under `model`."""
    return {
        "model": f"openai/{model}",
        "base_url": fake.base_url,
        "api_key": "test-key",
        "num_retries": 0,
        "retry_min_wait": 0.01,
        **extra,
    }


def unique(prefix: str) -> str:
    """A model name no other test uses (the fake server queues replies per model)."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


class ServerProcess:
    """`python -m openhands.agent_server` on a free port, with its log in a file."""

    def __init__(
        self,
        conversations: Path,
        *,
        env: dict[str, str] | None = None,
        log_dir: Path | None = None,
        preexec_fn: Callable[[], None] | None = None,
        args: tuple[str, ...] = (),
        python: str | None = None,
        port: int | None = None,
    ) -> None:
        """`python`: the interpreter to run the server with (default: this test's); `port`:
        one the test chose (where an earlier server ran), kept whatever happens."""
        self.conversations = conversations
        self.python = python or sys.executable
        self.port = free_port() if port is None else port
        self.port_fixed = port is not None
        self.log_path = (log_dir or conversations.parent) / f"server-{self.port}.log"
        self.preexec_fn = preexec_fn
        self.args = args
        self.extra_env = env or {}
        self.process: ServerChild | None = None
        self.api_key: str | None = (
            self.extra_env.get("OH_SESSION_API_KEYS", "").split(",")[0] or None
        )

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://127.0.0.1:{self.port}"

    def environment(self) -> dict[str, str]:
        """The server's environment: this one's, its folders, `env`; no developer's keys."""
        env = {
            **os.environ,
            "OH_CONVERSATIONS_PATH": str(self.conversations),
            "OH_WORKSPACE_PATH": str(self.conversations.parent / "workspaces"),
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }
        for name in ("OH_SESSION_API_KEYS", "LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY"):
            if name not in self.extra_env:  # the developer's own settings must not leak in
                env.pop(name, None)
        return env

    def start(self) -> Self:
        """Start the process and wait until it listens on its port and /health answers.

        The port was free when chosen; if another process took it before a first start, the
        server moves to a new one (a restart keeps its port: that is what a test restarts).
        """
        self.process, self.port = start_serving(
            self._spawn,
            self.port,
            log=self.log_path,
            what="the agent server",
            movable=not self.port_fixed,
        )
        self.port_fixed = True
        wait_until(self._healthy, START_TIMEOUT, f"/health of the agent server at {self.url}")
        return self

    def _spawn(self, port: int) -> ServerChild:
        return start_server(
            self.python,
            ["--port", str(port), *self.args],
            env=self.environment(),
            log=self.log_path,
            preexec_fn=self.preexec_fn,
        )

    def _healthy(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise AssertionError(f"the agent server exited at start-up:\n{self.log()}")
        try:
            return httpx.get(f"{self.url}/health", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def client(self, *, api_key: str | None = None) -> httpx.Client:
        """An HTTP client for this server (sending the session key if it has one)."""
        key = self.api_key if api_key is None else api_key
        headers = {"X-Session-API-Key": key} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def socket(
        self, conversation_id: str, *, api_key: str | None = None, **query: str
    ) -> EventSocket:
        """Open the conversation's event socket."""
        key = self.api_key if api_key is None else api_key
        headers = {"X-Session-API-Key": key} if key else {}
        params = "&".join(f"{name}={value}" for name, value in query.items())
        url = f"ws://127.0.0.1:{self.port}/sockets/events/{conversation_id}"
        return EventSocket(
            connect(
                f"{url}?{params}" if params else url, additional_headers=headers, open_timeout=10
            )
        )

    def log(self) -> str:
        """The server's output so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kill(self) -> None:
        """SIGKILL: the process gets no chance to clean up."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM and wait (SIGKILL after 20 s)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()


class FolderServer(ServerProcess):
    """A server keeping its conversations, workspaces and log in one folder `root`, with
    optional session keys (`api_keys`, comma-separated) and more settings in `env`; `port`
    restarts one where an earlier server ran."""

    def __init__(
        self,
        root: Path,
        api_keys: str = "",
        *,
        port: int | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        root.mkdir(parents=True, exist_ok=True)
        settings = {"OH_SESSION_API_KEYS": api_keys, **(env or {})}
        super().__init__(root / "conversations", env=settings, log_dir=root, port=port)
        self.root = root
        self.api_keys = api_keys

    def headers(self) -> dict[str, str]:
        """Headers for direct REST calls (the first session key, when keys are set)."""
        return {"X-Session-API-Key": self.api_key} if self.api_key else {}


class EventSocket:
    """A connected event socket: read events with a timeout."""

    def __init__(self, connection: ClientConnection) -> None:
        # websockets >= 17.1 wants a context manager; entering it here keeps that contract.
        self.connection = connection.__enter__()
        self.received: list[dict[str, Any]] = []
        self.snapshots: list[dict[str, Any]] = []

    def next(self, timeout: float = WAIT_TIMEOUT) -> dict[str, Any]:
        """The next event of the log (fails after `timeout` seconds).

        `full_state` snapshots (not events of the log) are kept in `snapshots` and skipped.
        """
        while True:
            frame = self.frame(timeout)
            if frame.get("kind") == "ConversationStateUpdateEvent" and (
                frame.get("key") == "full_state"
            ):
                self.snapshots.append(frame)
                continue
            self.received.append(frame)
            return frame

    def frame(self, timeout: float = WAIT_TIMEOUT) -> dict[str, Any]:
        """The next frame as sent, snapshot or event (fails after `timeout` seconds)."""
        return json.loads(self.connection.recv(timeout=timeout))

    def until(
        self, done: Callable[[dict[str, Any]], bool], timeout: float = WAIT_TIMEOUT
    ) -> list[dict[str, Any]]:
        """Read events until one satisfies `done`; return every event read by this call."""
        deadline = time.monotonic() + timeout
        seen: list[dict[str, Any]] = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                kinds = [e.get("kind") for e in seen]
                raise AssertionError(f"no matching event within {timeout}s; got {kinds}")
            event = self.next(timeout=left)
            seen.append(event)
            if done(event):
                return seen

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()

    def __enter__(self) -> EventSocket:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def goal_values(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The GoalStatus values of the goal events among `events`."""
    return [
        e["value"]
        for e in events
        if e.get("kind") == "ConversationStateUpdateEvent" and e.get("key") == "goal"
    ]


def is_goal_end(event: dict[str, Any]) -> bool:
    """True for a goal event whose status is no longer active."""
    return bool(goal_values([event])) and not event["value"]["active"]


def wait_goal_end(read_goal: Callable[[], Any], timeout: float = WAIT_TIMEOUT) -> dict[str, Any]:
    """Poll `read_goal()` (a GoalStatus dict or None) until the goal is no longer active."""

    def ended() -> dict[str, Any] | None:
        status = read_goal()
        return status if status and not status["active"] else None

    return wait_until(ended, timeout, what="the goal to end")


def verdict(complete: bool, *missing: str) -> FakeReply:
    """A judge answer: complete, or not yet with what is missing."""
    score = 1.0 if complete else 0.4
    return FakeReply.text(
        json.dumps({"score": score, "complete": complete, "missing": list(missing)})
    )


class HeldReplies:
    """A fake-LLM responder (`fake.set_responder(model, held)`) that answers `replies` in
    order (the last one again once they run out), each only after `release()`: a test keeps
    an LLM call in flight while it checks or does something, without guessing how long
    that takes on a busy machine."""

    def __init__(self, *replies: FakeReply) -> None:
        self._replies = list(replies)
        self._lock = threading.Lock()
        self._released = threading.Event()

    def __call__(self, _body: dict[str, Any]) -> FakeReply:
        self._released.wait(WAIT_TIMEOUT)
        with self._lock:
            return self._replies.pop(0) if len(self._replies) > 1 else self._replies[0]

    def release(self) -> None:
        """Let every held call answer, and every later one at once."""
        self._released.set()
