"""The sandbox's self-check: one trivial command through each way the agent's processes start.

A sandbox that bubblewrap can start may still fail every real command: the interpreter the
terminal's launcher needs is not inside (a venv under `/tmp`, whose `/tmp` the sandbox
replaces), a folder the policy hides holds it, a starter is missing. The probe
(`sandbox_probe.py`) only runs `true`; this check runs, in a fresh workspace, what the agent's
processes run: a command to its end (`run_shell`: verify, hooks, /api/bash), this process's
Python through the sandbox's starter (MCP servers, workflow scripts: `sandbox_command`), and
any further check a caller adds (the agent server adds the terminal's launcher, which lives in
openhands-tools). Each check answers None when it passed, else what failed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from openhands.sdk.workspace.sandbox import SandboxMode, SandboxUnavailableError, sandbox_command
from openhands.sdk.workspace.shell import run_shell

__all__ = ["CHECK_TIMEOUT", "Check", "check_python", "check_run_to_end", "self_check"]

CHECK_TIMEOUT = 60.0
"""Seconds each check may take (generous: a busy machine starts a sandbox in ~0.1 s)."""

MARKER = "openhands-sandbox-ok"
"""What each check's command prints when it ran."""

Check = Callable[[Path], str | None]
"""A check: given a fresh workspace, None when it passed, else what failed."""


def check_run_to_end(workspace: Path, mode: SandboxMode | None = None) -> str | None:
    """A command run to its end in the sandbox (`run_shell`): None when it printed the marker."""
    result = run_shell(f"echo {MARKER}", workspace, timeout=CHECK_TIMEOUT, sandbox=mode)
    if result.exit_code == 0 and MARKER in result.output:
        return None
    return f"a command run to its end failed (exit code {result.exit_code}): {_tail(result.output)}"


def check_python(workspace: Path, mode: SandboxMode | None = None) -> str | None:
    """This process's Python started in the sandbox through its starter, as MCP servers and
    workflow scripts are: None when it ran."""
    try:
        argv = sandbox_command(
            [sys.executable, "-I", "-S", "-c", f"print({MARKER!r})"], workspace=workspace, mode=mode
        )
        done = subprocess.run(
            argv,
            cwd=workspace,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=CHECK_TIMEOUT,
            start_new_session=True,
            check=False,
        )
    except (OSError, ValueError, SandboxUnavailableError, subprocess.TimeoutExpired) as exc:
        return f"this server's Python ({sys.executable}) could not start in the sandbox: {exc}"
    if done.returncode == 0 and MARKER in done.stdout:
        return None
    return (
        f"this server's Python ({sys.executable}) did not run in the sandbox (exit code "
        f"{done.returncode}): {_tail(done.stderr or done.stdout)}"
    )


def self_check(checks: Sequence[Check] = (), mode: SandboxMode | None = None) -> str | None:
    """Run the built-in checks and `checks` (at once) in a fresh workspace under the system's
    temp folder (where a sandbox's private `/tmp` would hide what it needs); what failed
    (every failure, `; `-separated), or None when every one passed. `mode` is the caller's
    sandbox choice."""
    folder = Path(tempfile.mkdtemp(prefix="oh-sandbox-check-"))
    try:
        builtin: list[Check] = [
            lambda path: check_run_to_end(path, mode),
            lambda path: check_python(path, mode),
        ]
        everything = [*builtin, *checks]
        # At once: each waits mostly for a sandbox to start (the start-up waits for the slowest).
        with ThreadPoolExecutor(len(everything), thread_name_prefix="sandbox-check") as pool:
            problems = list(pool.map(lambda check: check(folder), everything))
        return "; ".join(problem for problem in problems if problem) or None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _tail(text: str, limit: int = 400) -> str:
    """The end of a command's output, where its error is (one line's worth)."""
    text = " ".join(text.split())
    return repr(text[-limit:]) if text else "no output"
