"""The persistent terminal inside the bubblewrap sandbox: state, Ctrl-C and what it may touch."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.workspace import claim_workspace, release_workspace
from openhands.tools.terminal import TerminalSession
from openhands.tools.terminal.session import INTERRUPT
from sandbox_support import needs_bwrap

pytestmark = [
    pytest.mark.timeout(120),
    needs_bwrap,
]


@pytest.fixture
def sandboxed(workspace: Path) -> Iterator[TerminalSession]:
    """A terminal whose workspace asks for the sandbox (whatever OH_SANDBOX says)."""
    claim_workspace(workspace, "bwrap")
    session = TerminalSession(str(workspace))
    session.start()
    yield session
    session.close()
    release_workspace(workspace)


def test_the_shell_keeps_its_state_between_commands(sandboxed: TerminalSession) -> None:
    sandboxed.run("export GREETING=hello; mkdir -p sub; cd sub", timeout=10)

    result = sandboxed.run('echo "$GREETING from $(basename "$PWD")"', timeout=10)

    assert result.output.strip() == "hello from sub"
    assert result.exit_code == 0


def test_it_runs_in_a_pid_namespace_and_writes_only_the_workspace(
    sandboxed: TerminalSession, workspace: Path
) -> None:
    result = sandboxed.run(
        "echo inside > made.txt; touch /etc/oh-test 2>&1; echo $$; ls /proc | grep -c '^[0-9]'",
        timeout=10,
    )

    lines = result.output.strip().splitlines()
    assert "Read-only file system" in lines[0]
    assert int(lines[1]) < 10 and int(lines[2]) < 10  # only its own processes are visible
    assert (workspace / "made.txt").read_text() == "inside\n"


def test_ctrl_c_stops_the_running_command_and_the_shell_goes_on(
    sandboxed: TerminalSession,
) -> None:
    started = sandboxed.run(f"{sys.executable} -c 'import time; time.sleep(60)'", timeout=0.5)
    assert not started.finished

    stopped = sandboxed.send_input(INTERRUPT, timeout=10)
    after = sandboxed.run("echo still here", timeout=10)

    assert stopped.finished and stopped.exit_code == 130
    assert after.output.strip() == "still here"


def test_exit_ends_the_shell_with_its_code(sandboxed: TerminalSession) -> None:
    result = sandboxed.run("exit 7", timeout=10)

    assert result.shell_exited and result.exit_code == 7
