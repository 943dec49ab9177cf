"""The sandbox's self-check at start reports a terminal that cannot start, loudly.

A server installed where the sandbox cannot show it (here a venv under /dev/shm: the sandbox
has its own /dev, and never binds the host's into it) cannot start the agent's terminal in
the sandbox: the launcher's Python is missing there. Before, such a server said in
/server_info that the sandbox was active, logged nothing, and every goal ran out of rounds
because no command ever ran. Now its self-check at start finds it: with OH_SANDBOX=auto the
server runs the agent without a sandbox and says why (log and /server_info), with
OH_SANDBOX=bwrap it refuses to start, naming the failure.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_server.harness import START_TIMEOUT, ServerProcess
from ports import free_port
from relocated_python import relocated_python
from sandbox_support import needs_bwrap

pytestmark = [pytest.mark.timeout(300), needs_bwrap]

SHM = Path("/dev/shm")


@pytest.fixture
def shm_python() -> Iterator[Path]:
    """This project's Python installed under /dev/shm (removed afterwards)."""
    if not SHM.is_dir():
        pytest.skip("no /dev/shm on this machine")
    folder = Path(tempfile.mkdtemp(prefix="oh-self-check-", dir=SHM))
    yield relocated_python(folder)
    shutil.rmtree(folder, ignore_errors=True)


def test_auto_reports_a_terminal_that_cannot_start_and_runs_unsandboxed(
    shm_python: Path, tmp_path: Path
) -> None:
    server = ServerProcess(
        tmp_path / "conversations", python=str(shm_python), env={"OH_SANDBOX": "auto"}
    )
    server.start()
    try:
        with server.client() as http:
            info = http.get("/server_info").json()["sandbox"]
            ran = http.post(
                "/api/bash/execute_bash_command", json={"command": "echo $((6 * 7)) ran"}
            ).json()
        log = server.log()
    finally:
        server.stop()

    assert info["self_check"] == "failed" and info["active"] is False, info
    assert info["network"] == "host"
    assert "WITHOUT a sandbox" in info["warning"] and "terminal" in info["warning"], info
    assert str(shm_python) in info["warning"]  # names what is missing
    assert "ERROR" in log and "self-check failed" in log, log
    assert ran["exit_code"] == 0 and "42 ran" in ran["stdout"], ran  # the fallback runs


def test_bwrap_refuses_to_start_naming_the_failure(shm_python: Path, tmp_path: Path) -> None:
    conversations = tmp_path / "conversations"
    done = subprocess.run(
        [str(shm_python), "-m", "openhands.agent_server", "--port", str(free_port())],
        env=ServerProcess(conversations, env={"OH_SANDBOX": "bwrap"}).environment(),
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
        check=False,
    )

    assert done.returncode != 0
    assert "OH_SANDBOX=bwrap, but the sandbox's self-check failed" in done.stderr, done.stderr
    assert "terminal" in done.stderr
