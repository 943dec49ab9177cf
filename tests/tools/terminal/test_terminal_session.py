"""TerminalSession on a real bash: what the tool relies on at the session level."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.tools.terminal import TerminalSession
from openhands.tools.terminal.session import INTERRUPT

# Stands for a job whose first Ctrl-C was lost (bash was still starting it): it only gives up
# on the second SIGINT.
SURVIVES_ONE_CTRL_C = """
import os, signal, time
def on_first_sigint(*_):
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # the next one kills, as for any job
signal.signal(signal.SIGINT, on_first_sigint)
print("ready", flush=True)
while True:
    time.sleep(0.05)
"""


@pytest.fixture
def session(workspace: Path) -> Iterator[TerminalSession]:
    started = TerminalSession(str(workspace))
    started.start()
    yield started
    started.close()


def test_ctrl_c_is_delivered_again_to_a_job_that_survives_it(
    session: TerminalSession, workspace: Path
) -> None:
    (workspace / "stubborn.py").write_text(SURVIVES_ONE_CTRL_C)
    output = session.run(f"{sys.executable} stubborn.py; echo not-reached", timeout=0.2).output
    for _ in range(40):  # until the job has set up its handler
        if "ready" in output:
            break
        output += session.wait(0.25).output
    assert "ready" in output

    result = session.send_input(INTERRUPT, timeout=10)

    assert result.finished
    assert result.exit_code == 130
    assert "not-reached" not in result.output
