"""Loopback ports for the servers a test starts, and proof that the server on one is ours.

`free_port()` asks the kernel for a port nothing uses right now and gives it back at once, so
until the test's server binds it another process may take it too: a second suite on the same
machine, another worker's server, or a restarted server's port reused while it was down. A
server that then fails to bind must not pass for started because some *other* server answers
on that port (the test would talk to a stranger and fail far away, or not at all).
`serves(process, port)` is the check: the port is listened on by `process` or one of its
descendants.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

import psutil
from waits import EVENT_WAIT

ADDRESS_IN_USE = "already in use"
"""What servers print when they cannot bind their port (lower case): "address already in
use" (uvicorn, Go), "port N on HOST is already in use" (the agent server)."""

PORT_ATTEMPTS = 3
"""Ports a first start may try when another process takes the chosen one meanwhile."""


class Started(Protocol):
    """A started server's process: `subprocess.Popen`, or a server forked by
    tests/server_zygote.py."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...


P = TypeVar("P", bound=Started)


class PortTaken(AssertionError):
    """A server exited at start-up because another process had taken its port."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serves(process: Started | int, port: int) -> bool:
    """Whether `process` (a Popen or a pid), or a process it started, listens on `port`."""
    pid = process if isinstance(process, int) else process.pid
    try:
        root = psutil.Process(pid)
        family = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return False
    for member in family:
        try:
            connections = member.net_connections(kind="tcp")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        if any(c.status == psutil.CONN_LISTEN and c.laddr.port == port for c in connections):
            return True
    return False


def lost_port(log: str) -> bool:
    """Whether a server's log says it exited because its port was taken."""
    return ADDRESS_IN_USE in log.lower()


def wait_serving(
    process: Started,
    port: int,
    *,
    log: Path,
    what: str,
    retry_any_exit: bool = False,
    timeout: float = EVENT_WAIT,
) -> None:
    """Wait until `process` listens on `port`. Raises `PortTaken` when it exited because the
    port was taken (or, with `retry_any_exit`, exited at all: a server that picks more ports
    of its own than the test gives it), else AssertionError with the end of its `log`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            text = log.read_text(errors="replace") if log.exists() else ""
            if retry_any_exit or lost_port(text):
                raise PortTaken(f"{what} could not bind its ports:\n{text[-3000:]}")
            raise AssertionError(
                f"{what} exited at start-up (code {process.returncode}):\n{text[-3000:]}"
            )
        if serves(process, port):
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} did not listen on port {port} within {timeout:g} s")


def start_serving(
    spawn: Callable[[int], P],
    port: int,
    *,
    log: Path,
    what: str,
    movable: bool = True,
    retry_any_exit: bool = False,
) -> tuple[P, int]:
    """Run `spawn(port)` until its process listens on that port; the process and the port.

    A `movable` start (a first one) moves to a new free port when another process took
    `port` first; a restart keeps its port, whatever happens: that is what it tests.
    """
    attempts = PORT_ATTEMPTS if movable else 1
    for attempt in range(attempts):
        process = spawn(port)
        try:
            wait_serving(process, port, log=log, what=what, retry_any_exit=retry_any_exit)
            return process, port
        except PortTaken:
            process.wait(timeout=10)
            if attempt == attempts - 1:
                raise
            port = free_port()
    raise AssertionError("unreachable")  # the loop returns or raises
