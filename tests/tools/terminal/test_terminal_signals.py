"""The shell's signals do not depend on how the server was started."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.tools.terminal import TerminalSession
from openhands.tools.terminal.session import INTERRUPT

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def started_ignoring_sigint(workspace: Path) -> Iterator[TerminalSession]:
    """A terminal started by a process that ignores SIGINT and SIGQUIT, as any program started
    with `&` from a shell script does (the children inherit what is ignored)."""
    before = (
        signal.signal(signal.SIGINT, signal.SIG_IGN),
        signal.signal(signal.SIGQUIT, signal.SIG_IGN),
    )
    try:
        session = TerminalSession(str(workspace))
        session.start()
    finally:
        signal.signal(signal.SIGINT, before[0])
        signal.signal(signal.SIGQUIT, before[1])
    yield session
    session.close()


def test_ctrl_c_stops_a_command_even_when_the_server_ignores_sigint(
    started_ignoring_sigint: TerminalSession,
) -> None:
    started = started_ignoring_sigint.run("sleep 60; echo not-reached", timeout=0.5)
    assert not started.finished

    stopped = started_ignoring_sigint.send_input(INTERRUPT, timeout=20)

    assert stopped.finished and stopped.exit_code == 130
    assert "not-reached" not in stopped.output


def test_a_closed_pipe_ends_the_writer_quietly(started_ignoring_sigint: TerminalSession) -> None:
    # SIGPIPE at its default: `yes` dies of it (141) instead of printing "Broken pipe".
    result = started_ignoring_sigint.run('yes | head -n 1; echo "${PIPESTATUS[0]}"', timeout=20)

    assert result.output.split() == ["y", "141"]
    assert "Broken pipe" not in result.output
