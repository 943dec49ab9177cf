"""The terminal's part of the sandbox's self-check: a real session starts and runs `echo`.

Real bubblewrap (skipped where it cannot run). Its broken case is real too: a policy that
hides the folder of this process's Python, so the terminal's launcher cannot start in the
sandbox (what a venv under /tmp did before the sandbox showed the server's own folders).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from openhands.sdk.workspace import SandboxPolicy, configure_sandbox
from openhands.tools.terminal.self_check import check_terminal
from sandbox_support import needs_bwrap

pytestmark = needs_bwrap


def test_a_terminal_starts_and_runs_a_command_in_the_sandbox(tmp_path: Path) -> None:
    configure_sandbox(SandboxPolicy(mode="bwrap"))
    try:
        assert check_terminal(tmp_path) is None
    finally:
        configure_sandbox(None)


def test_a_launcher_that_cannot_start_is_reported(tmp_path: Path) -> None:
    hidden = os.path.dirname(os.path.abspath(sys.executable))
    configure_sandbox(SandboxPolicy(mode="bwrap", hidden=(hidden,)))
    try:
        problem = check_terminal(tmp_path)
    finally:
        configure_sandbox(None)

    assert problem is not None and problem.startswith("the terminal could not start")
    assert sys.executable in problem and "No such file or directory" in problem
