"""The suite's port helper: a server whose port another process took is never taken for
started because the stranger answers there; a first start moves, a restart does not."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from ports import PortTaken, free_port, serves, start_serving


@pytest.fixture
def stranger() -> Iterator[int]:
    """A port another process (this one) listens on, as a second suite's server would."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def _spawner(
    log: Path, spawned: list[subprocess.Popen[bytes]]
) -> Callable[[int], subprocess.Popen[bytes]]:
    def spawn(port: int) -> subprocess.Popen[bytes]:
        with open(log, "ab") as out:
            process = subprocess.Popen(
                [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        spawned.append(process)
        return process

    return spawn


def test_serves_tells_our_listener_from_a_strangers(stranger: int, tmp_path: Path) -> None:
    spawned: list[subprocess.Popen[bytes]] = []
    process, port = start_serving(
        _spawner(tmp_path / "log", spawned), free_port(), log=tmp_path / "log", what="http.server"
    )
    try:
        assert serves(process, port)
        assert not serves(process, stranger)
    finally:
        process.kill()
        process.wait()


def test_a_first_start_on_a_taken_port_moves_to_a_free_one(stranger: int, tmp_path: Path) -> None:
    spawned: list[subprocess.Popen[bytes]] = []
    log = tmp_path / "log"

    process, port = start_serving(_spawner(log, spawned), stranger, log=log, what="http.server")
    try:
        assert port != stranger
        assert serves(process, port)
        assert len(spawned) == 2 and spawned[0].returncode not in (None, 0)
    finally:
        process.kill()
        process.wait()


def test_a_restart_on_a_taken_port_fails_saying_so(stranger: int, tmp_path: Path) -> None:
    spawned: list[subprocess.Popen[bytes]] = []
    log = tmp_path / "log"

    with pytest.raises(PortTaken, match="could not bind"):
        start_serving(_spawner(log, spawned), stranger, log=log, what="http.server", movable=False)

    assert len(spawned) == 1
