"""`LocalWorkspace`: a folder on this machine where the agent works."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class CommandResult(BaseModel):
    """The outcome of a shell command run in a workspace."""

    model_config = ConfigDict(defer_build=True)

    command: str
    exit_code: int
    output: str = Field(description="stdout and stderr, interleaved.")
    timed_out: bool = False


class LocalWorkspace(BaseModel):
    """A working directory on the local machine (created if missing)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    kind: Literal["LocalWorkspace"] = "LocalWorkspace"
    working_dir: str = Field(description="Folder where tools run and files are edited.")

    @field_validator("working_dir")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("working_dir must not be blank")
        return str(Path(value).expanduser().resolve())

    def ensure_exists(self) -> Path:
        """Create the working directory if needed and return it."""
        path = Path(self.working_dir)
        path.mkdir(parents=True, exist_ok=True)
        return path

    def execute_command(self, command: str, *, timeout: float | None = 300.0) -> CommandResult:
        """Run `command` with bash in the working directory; never raises on failure."""
        cwd = self.ensure_exists()
        try:
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                start_new_session=True,
            )
        except subprocess.TimeoutExpired as exc:
            partial = exc.stdout or b""
            text = partial.decode(errors="replace") if isinstance(partial, bytes) else partial
            return CommandResult(
                command=command,
                exit_code=124,
                output=text + f"\n[command timed out after {timeout} s]",
                timed_out=True,
            )
        return CommandResult(
            command=command,
            exit_code=done.returncode,
            output=done.stdout.decode(errors="replace"),
        )
