"""The terminal's part of the sandbox's self-check (`openhands.sdk.workspace.sandbox_check`).

A real `TerminalSession` (its launcher, its pty, its sandbox) starts in the given folder and
runs one `echo`: what every conversation's first terminal command does. The agent server
runs it at start, so a terminal that cannot start (e.g. its launcher's Python is missing in
the sandbox) is reported there, not discovered by an agent whose commands never run.
"""

from __future__ import annotations

from pathlib import Path

from openhands.sdk.workspace.sandbox_check import CHECK_TIMEOUT, MARKER
from openhands.tools.terminal.session import TerminalSession, TerminalSessionError

__all__ = ["check_terminal"]


def check_terminal(workspace: Path) -> str | None:
    """None when a terminal starts in `workspace` and runs a command; else what failed."""
    session = TerminalSession(str(workspace), startup_timeout=CHECK_TIMEOUT)
    try:
        session.start()
        result = session.run(f"echo {MARKER}", timeout=CHECK_TIMEOUT)
    except TerminalSessionError as exc:
        return f"the terminal could not start: {exc}"
    finally:
        session.close()
    if result.finished and result.exit_code == 0 and MARKER in result.output:
        return None
    output = " ".join(result.output.split())[-400:]
    return f"the terminal's first command failed (exit code {result.exit_code}): {output!r}"
