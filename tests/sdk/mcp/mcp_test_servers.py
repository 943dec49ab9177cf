"""Helpers for MCP tests: where the test servers are, and how to watch their processes."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
from openhands.sdk import LocalConversation
from openhands.sdk.testing import TestLLM
from ports import free_port, start_serving
from waits import EVENT_WAIT

SERVERS = Path(__file__).parent / "servers"
TOOLS_SERVER = SERVERS / "tools_server.py"
SILENT_SERVER = SERVERS / "silent_server.py"
SESSION_SERVER = SERVERS / "session_server.py"

GONE_WITHIN = EVENT_WAIT
"""Seconds a server process may take to disappear (polled, not slept)."""


def stdio_config(**extra: Any) -> dict[str, Any]:
    """The JSON of the stdio test server (tools add, echo_env, red_pixel, crash, ...)."""
    return {"command": sys.executable, "args": [str(TOOLS_SERVER)], **extra}


def silent_config(**extra: Any) -> dict[str, Any]:
    """A stdio server that starts and never answers the handshake."""
    return {"command": sys.executable, "args": [str(SILENT_SERVER)], **extra}


def server_processes() -> list[psutil.Process]:
    """This test process's live descendants that run a stdio test server (not the HTTP one)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.status() == psutil.STATUS_ZOMBIE:
                continue
            command = child.cmdline()
        except psutil.NoSuchProcess:
            continue
        # The server itself, `python <servers>/x.py`: not the sandbox around it (bwrap and
        # its starter name the script in their command lines too).
        if len(command) > 1 and command[1].startswith(str(SERVERS)) and "http" not in command:
            found.append(child)
    return found


def marked(marker: str) -> list[psutil.Process]:
    """The live processes whose command line holds `marker` (what `spawn_child` returns)."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        command = " ".join(process.info["cmdline"] or [])
        if marker in command and process.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(process)
    return found


def gone(pid: int) -> bool:
    """True once `pid` no longer runs (a zombie counts as gone)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def wait_for(predicate: Callable[[], object], timeout: float = GONE_WITHIN) -> bool:
    """Poll `predicate` until it is truthy or `timeout` passes; return its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return bool(predicate())


MakeMCPConversation = Callable[..., tuple[LocalConversation, TestLLM]]
"""The `make_mcp_conversation` fixture: `make(replies, mcp_config=..., **agent_fields)`."""


class SessionServer:
    """`session_server.py` (streamable HTTP, session-based) on a fixed port: start, stop and
    start it again there, and read the HTTP requests it counted."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.stats_file = folder / "requests.json"
        self.log = folder / "session-server.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.started = False

    @property
    def url(self) -> str:
        """The server's MCP endpoint."""
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        """Start it; a restart comes back on the port the first start took."""
        self.process, self.port = start_serving(
            self._spawn,
            self.port,
            log=self.log,
            what="the session MCP server",
            movable=not self.started,
        )
        self.started = True

    def _spawn(self, port: int) -> subprocess.Popen[bytes]:
        with open(self.log, "ab") as log:
            return subprocess.Popen(
                [sys.executable, str(SESSION_SERVER), str(port), str(self.stats_file)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None
        assert wait_for(lambda: not self._listening(), 10), "the port stayed open"

    def requests(self, method: str) -> int:
        """How many HTTP requests of `method` the server got (over all its starts)."""
        try:
            return json.loads(self.stats_file.read_text()).get(method, 0)
        except FileNotFoundError:
            return 0

    def _listening(self) -> bool:
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", self.port)) == 0
