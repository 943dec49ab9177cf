"""`verify`: run a shell command (e.g. `pytest -q`) in the workspace after each round.

A goal with a verify command cannot be complete unless the command exits 0. The runner is
injectable (`Verifier`), so tests and durable engines can replace the subprocess.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from openhands.sdk.conversation.goal.models import VerifyResult
from openhands.sdk.workspace.shell import run_shell

if TYPE_CHECKING:
    from openhands.sdk.conversation.goal.steps import RunVerify

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
    result = run_shell(command, cwd, timeout=timeout)
    return VerifyResult(
        command=command,
        exit_code=result.exit_code,
        output_tail=_tail(result.output, tail_chars),
        timed_out=result.timed_out,
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


def perform_verify(step: RunVerify, verifier: Verifier | None = None) -> VerifyResult:
    """Perform a `RunVerify` step in this process: with `verifier` if given (it may raise:
    that is a failed verification), else `run_verify_command` with the step's limits."""
    if verifier is None:
        return run_verify_command(
            step.command, step.working_dir, timeout=step.timeout, tail_chars=step.tail_chars
        )
    return safe_verify(verifier, step.command, step.working_dir)
