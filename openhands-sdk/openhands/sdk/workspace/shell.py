"""`run_shell`: run one bash command to its end, or kill it and everything it started."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

TIMEOUT_EXIT_CODE = 124
"""The exit code reported for a command that ran out of time (as `timeout(1)` does)."""


class CommandResult(BaseModel):
    """The outcome of a shell command run in a workspace."""

    model_config = ConfigDict(defer_build=True)

    command: str
    exit_code: int
    output: str = Field(description="stdout and stderr, interleaved.")
    timed_out: bool = False


def run_shell(command: str, cwd: Path, *, timeout: float | None) -> CommandResult:
    """Run `command` with bash in `cwd`; never raises for a failing or hanging command.

    On timeout the command's whole process group is killed (a test runner's workers too, which
    would otherwise keep running and hold the output pipe open) and the result has exit code
    124, `timed_out=True` and the output so far. A command that cannot start gets exit code 127.
    """
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
        return CommandResult(command=command, exit_code=127, output=f"cannot start: {exc}")
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        try:
            output, _ = process.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # a grandchild left the group and holds the pipe
            output = b""
            if process.stdout is not None:
                process.stdout.close()
            process.wait()
        return CommandResult(
            command=command,
            exit_code=TIMEOUT_EXIT_CODE,
            output=output.decode(errors="replace") + f"\n[command timed out after {timeout:g} s]",
            timed_out=True,
        )
    return CommandResult(
        command=command, exit_code=process.returncode, output=output.decode(errors="replace")
    )


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()
