"""`run_shell`: run one bash command to its end, or kill it and everything it started.

The one runner for commands that run to completion: workspace commands, `verify` and hooks.
Each command runs in the sandbox of its workspace (`sandbox.py`), in its own session with the
agent's environment (`agent_env.py`), is guarded by the watchdog while it runs (it dies with
this process) and on timeout is killed with its whole tree (`processes.py`).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from openhands.sdk.workspace.agent_env import agent_environment
from openhands.sdk.workspace.processes import guarded_process_group, kill_process_group
from openhands.sdk.workspace.sandbox import SandboxMode, SandboxUnavailableError
from openhands.sdk.workspace.sandbox_popen import sandbox_popen
from pydantic import BaseModel, ConfigDict, Field

TIMEOUT_EXIT_CODE = 124
"""The exit code reported for a command that ran out of time (as `timeout(1)` does)."""

CANNOT_START_EXIT_CODE = 127
"""The exit code reported for a command that could not be started (as bash does)."""

DRAIN_SECONDS = 5.0
"""After a kill, how long to wait for the output pipes to close before giving up on them."""


class CommandResult(BaseModel):
    """The outcome of a shell command run to its end (or killed at its timeout)."""

    model_config = ConfigDict(defer_build=True)

    command: str
    exit_code: int
    output: str = Field(description="stdout, with stderr interleaved unless kept apart.")
    stderr: str = Field(default="", description="stderr, when it was kept apart from stdout.")
    timed_out: bool = False

    @property
    def stdout(self) -> str:
        """The reference SDK's name for `output`."""
        return self.output

    @property
    def timeout_occurred(self) -> bool:
        """The reference SDK's name for `timed_out`."""
        return self.timed_out


def run_shell(
    command: str,
    cwd: Path | str,
    *,
    timeout: float | None,
    stdin: str | None = None,
    env: Mapping[str, str] | None = None,
    separate_stderr: bool = False,
    workspace: Path | str | None = None,
    sandbox: SandboxMode | None = None,
) -> CommandResult:
    """Run `command` with bash in `cwd`; never raises for a failing or hanging command.

    `stdin` is written to the command (None: it reads nothing). `env` is its whole
    environment (None: `agent_environment()`, this process's minus its secrets). With
    `separate_stderr`, stderr goes to `CommandResult.stderr` instead of being interleaved.
    `timeout` None means no limit. On timeout the command's whole tree is killed (a test
    runner's workers too) and the result has exit code 124, `timed_out=True` and the output so
    far. A command that cannot start (or contains a NUL byte, or needs a sandbox that cannot
    run) gets exit code 127. It runs in the sandbox of `workspace` (default: `cwd`), the one
    folder it may write; `sandbox` is the caller's mode (see `sandbox_plan`).
    """
    environment = dict(agent_environment() if env is None else env)
    environment["PYTHONUNBUFFERED"] = "1"
    try:
        started = sandbox_popen(
            ["bash", "-c", command],
            workspace=workspace or cwd,
            cwd=cwd,
            mode=sandbox,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if separate_stderr else subprocess.STDOUT,
            env=environment,
            start_new_session=True,  # one group for its whole tree: a kill reaches them all
        )
    except (OSError, ValueError, SandboxUnavailableError) as exc:  # ValueError: a NUL byte
        message = f"cannot start: {exc}"
        return CommandResult(
            command=command,
            exit_code=CANNOT_START_EXIT_CODE,
            output="" if separate_stderr else message,
            stderr=message if separate_stderr else "",
        )
    process = started.process
    with guarded_process_group(process.pid):
        try:
            out, err = process.communicate(
                None if stdin is None else stdin.encode(errors="replace"), timeout=timeout
            )
        except subprocess.TimeoutExpired:
            kill_process_group(process.pid)
            out, err = _drain(process)
            return CommandResult(
                command=command,
                exit_code=TIMEOUT_EXIT_CODE,
                output=_text(out) + f"\n[command timed out after {timeout:g} s]",
                stderr=_text(err),
                timed_out=True,
            )
        finally:
            started.release()
    return CommandResult(
        command=command, exit_code=process.returncode, output=_text(out), stderr=_text(err)
    )


def _drain(process: subprocess.Popen[bytes]) -> tuple[bytes | None, bytes | None]:
    """The rest of a killed command's output, without hanging on a pipe an escapee holds."""
    try:
        return process.communicate(timeout=DRAIN_SECONDS)
    except subprocess.TimeoutExpired:  # a grandchild left the group and still holds the pipe
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
        process.wait()
        return None, None


def _text(data: bytes | None) -> str:
    # A command may print any bytes; strict decoding would turn odd output into a crash.
    return data.decode(errors="replace") if data else ""
