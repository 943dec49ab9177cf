"""TerminalSession on a real bash: what the tool relies on at the session level."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.tools.terminal import TerminalSession
from openhands.tools.terminal.session import INTERRUPT

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def session(workspace: Path) -> Iterator[TerminalSession]:
    started = TerminalSession(str(workspace))
    started.start()
    yield started
    started.close()


def test_ctrl_c_sent_while_bash_is_still_starting_the_command_interrupts_it(
    session: TerminalSession,
) -> None:
    # Sent at once, Ctrl-C can reach bash before the job owns the terminal (about 1 in 13
    # tries here): that press is lost, and the session has to deliver it again.
    for attempt in range(60):
        assert not session.run("sleep 60; echo not-reached", timeout=0).finished
        result = session.send_input(INTERRUPT, timeout=10)
        assert result.finished, f"attempt {attempt}: the sleep survived Ctrl-C"
        assert result.exit_code == 130
        assert "not-reached" not in result.output
