"""`verify`: run a shell command (e.g. `pytest -q`) in the workspace after each round.

A goal with a verify command cannot be complete unless the command exits 0. The runner is
injectable (`Verifier`), so tests and durable engines can replace the subprocess.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

from openhands.sdk.conversation.goal.models import VerifyResult

DEFAULT_VERIFY_TIMEOUT = 600.0
"""Seconds a verify command may run before it is killed (and counts as failed)."""

DEFAULT_TAIL_CHARS = 4_000
"""How much of the end of the verify output is kept."""

Verifier = Callable[[str, "str | None"], VerifyResult]
"""`verifier(command, working_dir) -> VerifyResult`; must not raise for a failing command."""


def _tail(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"[... {len(text) - limit} characters cut ...]\n" + text[-limit:]


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


def run_verify_command(
    command: str,
    working_dir: str | None = None,
    *,
    timeout: float = DEFAULT_VERIFY_TIMEOUT,
    tail_chars: int = DEFAULT_TAIL_CHARS,
) -> VerifyResult:
    """Run `command` with bash in `working_dir` and report its exit code and output tail.

    Never raises for a failing or hanging command: a timeout kills the whole process group
    and gives exit code 124 with `timed_out=True`; a missing working dir gives exit code 127.
    """
    cwd = Path(working_dir) if working_dir else Path.cwd()
    if not cwd.is_dir():
        return VerifyResult(
            command=command,
            exit_code=127,
            output_tail=f"working directory {str(cwd)!r} does not exist",
        )
    try:
        process = subprocess.Popen(
            ["bash", "-c", command],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            start_new_session=True,
        )
    except OSError as exc:
        return VerifyResult(command=command, exit_code=127, output_tail=f"cannot start: {exc}")
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # Kill the group, not just bash: a test runner's children would keep the pipe open.
        _kill_group(process)
        try:
            output, _ = process.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # a grandchild left the group and holds the pipe
            output = b""
            if process.stdout is not None:
                process.stdout.close()
            process.wait()
        text = output.decode(errors="replace") + f"\n[verify timed out after {timeout:g} s]"
        return VerifyResult(
            command=command, exit_code=124, output_tail=_tail(text, tail_chars), timed_out=True
        )
    return VerifyResult(
        command=command,
        exit_code=process.returncode,
        output_tail=_tail(output.decode(errors="replace"), tail_chars),
    )


def safe_verify(verifier: Verifier, command: str, working_dir: str | None) -> VerifyResult:
    """Call `verifier`; a verifier that raises counts as a failed verification, not a crash."""
    try:
        return verifier(command, working_dir)
    except Exception as exc:
        return VerifyResult(
            command=command,
            exit_code=-1,
            output_tail=f"the verifier raised {type(exc).__name__}: {exc}",
        )
