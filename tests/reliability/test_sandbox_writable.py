"""`OH_SANDBOX_WRITABLE` values that would undo the sandbox stop the server, naming it.

Before, the server started silently with `/` (or a link to it), its own venv, /proc or its
data folder as a writable folder, and the sandbox then wrote /etc or a `.pth` file into the
server's site-packages (which runs unsandboxed, with every key, at the next start);
relative, `:`-separated and missing entries were silently ignored although the docs say
invalid values stop the server. Each case here starts a real server and expects it to exit
with a message naming the variable and the folder, before it ever answers.
"""

from __future__ import annotations

import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from agent_server.harness import START_TIMEOUT, ServerProcess
from sandbox_support import needs_bwrap
from server_zygote import ServerChild, start_server

pytestmark = [pytest.mark.timeout(300)]

CASES: dict[str, Callable[[Path], str]] = {
    "root": lambda _: "/",
    "a link to root": lambda tmp: _link(tmp / "root-link", "/"),
    "the server's venv": lambda _: sys.prefix,
    "the server's site-packages": lambda _: sysconfig.get_path("purelib"),
    "a folder holding the server's venv": lambda _: str(Path(sys.prefix).parent),
    "proc": lambda _: "/proc",
    "sys": lambda _: "/sys",
    "dev": lambda _: "/dev",
    "dev/shm": lambda _: "/dev/shm",
    "the conversations folder": lambda tmp: str(tmp / "data" / "conversations"),
    "the folder of the key file": lambda tmp: str(tmp / "data"),
    "the settings folder": lambda tmp: str(tmp / "data" / "settings"),
    "a folder holding the data": lambda tmp: str(tmp),
    "a relative folder": lambda _: "projects",
    "a missing folder": lambda tmp: str(tmp / "missing"),
    "a colon-separated list": lambda tmp: f"{tmp / 'a'}:{tmp / 'b'}",
}
"""Each unsafe value, made from the test's folder (which holds the server's data)."""


def _link(link: Path, target: str) -> str:
    link.symlink_to(target)
    return str(link)


def _start(tmp_path: Path, writable: str) -> tuple[ServerChild, str, Path]:
    """A server of the test's own, started in `tmp_path` (where a relative folder would be
    found); its process, URL and log."""
    for folder in ("data/conversations", "data/settings", "a", "b", "projects"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    server = ServerProcess(
        tmp_path / "data" / "conversations",
        env={"OH_SANDBOX": "auto", "OH_SANDBOX_WRITABLE": writable},
    )
    log = tmp_path / "server.log"
    process = start_server(
        sys.executable,
        ["--port", str(server.port)],
        env=server.environment(),
        cwd=str(tmp_path),
        log=log,
    )
    return process, server.url, log


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_unsafe_writable_folder_stops_the_server(tmp_path: Path, case: str) -> None:
    value = CASES[case](tmp_path)
    process, url, log = _start(tmp_path, value)
    try:
        answered = _exits_or_answers(process, url)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
    output = log.read_text()

    assert not answered, f"the server started with OH_SANDBOX_WRITABLE={value!r}"
    assert process.returncode != 0
    assert "OH_SANDBOX_WRITABLE" in output, output
    if case == "a colon-separated list":
        assert "comma" in output
    else:
        assert value in output, output


@needs_bwrap
def test_a_safe_writable_folder_is_writable_in_the_sandbox(tmp_path: Path) -> None:
    shared = tmp_path / "shared-venv"
    shared.mkdir()
    (tmp_path / "data").mkdir()
    server = ServerProcess(
        tmp_path / "data" / "conversations",
        env={"OH_SANDBOX": "bwrap", "OH_SANDBOX_WRITABLE": str(shared)},
    ).start()
    try:
        with server.client() as http:
            ran = http.post(
                "/api/bash/execute_bash_command",
                json={"command": f"echo installed > {shared}/package.txt && echo ok"},
            ).json()
    finally:
        server.stop()

    assert ran["exit_code"] == 0, ran
    assert (shared / "package.txt").read_text() == "installed\n"


def _exits_or_answers(process: ServerChild, url: str) -> bool:
    """Wait until the server exits (False) or answers /health (True)."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return True
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError(f"the server neither exited nor answered in {START_TIMEOUT} s")
