"""Wire models of `/api/bash`: run a command on the server, now or in the background.

The shapes are the reference server's: `start_bash_command` answers a `BashCommand`, its
output arrives as `BashOutput` events found with `bash_events/search`, and
`execute_bash_command` answers one `BashOutput` holding the whole output. This server adds
`command` and `timed_out` to an output; `to_result` reads either server's answer.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Literal

from openhands.sdk.wire.base import WireAnswer, WireRequest
from pydantic import Field, field_validator

if TYPE_CHECKING:
    from openhands.sdk.workspace.shell import CommandResult

TIMED_OUT_EXIT_CODE = -1
"""The exit code the reference's clients report for a command that ran out of time."""


def _now() -> datetime:
    return datetime.now(UTC)


class ExecuteCommandRequest(WireRequest):
    """Body of POST /api/bash/execute_bash_command and /api/bash/start_bash_command."""

    command: str = Field(min_length=1, description="A bash command.")
    cwd: str | None = Field(
        default=None,
        description="Folder on the server to run it in (made if missing); default: the "
        "server's workspace folder (OH_WORKSPACE_PATH).",
    )
    timeout: float = Field(
        default=300.0, gt=0, le=86_400, description="Seconds before the command is killed."
    )

    @field_validator("command", "cwd")
    @classmethod
    def _no_nul(cls, value: str | None) -> str | None:
        if value is not None and "\x00" in value:
            raise ValueError("must not contain a NUL byte")
        return value


class BashCommand(WireAnswer):
    """A command started in the background: the answer of POST /start_bash_command."""

    kind: Literal["BashCommand"] = "BashCommand"
    id: uuid.UUID = Field(default_factory=uuid.uuid4, description="The command's id.")
    timestamp: datetime = Field(default_factory=_now)
    command: str
    cwd: str | None = None
    timeout: float = 300.0


class BashOutput(WireAnswer):
    """Output of a command; `exit_code` null means it is still running."""

    kind: Literal["BashOutput"] = "BashOutput"
    id: uuid.UUID = Field(default_factory=uuid.uuid4, description="The event's id.")
    timestamp: datetime = Field(default_factory=_now)
    command_id: uuid.UUID
    order: int = Field(default=0, description="The output's position among its command's.")
    exit_code: int | None = None
    stdout: str | None = None
    stderr: str | None = None
    command: str | None = Field(default=None, description="The command (this server adds it).")
    timed_out: bool = Field(default=False, description="Killed at its timeout (added here).")

    def to_result(self, command: str) -> CommandResult:
        """The `CommandResult` this output reports (`command` is what was asked to run)."""
        from openhands.sdk.workspace.shell import CommandResult

        exit_code = TIMED_OUT_EXIT_CODE if self.exit_code is None else self.exit_code
        return CommandResult(
            command=command,
            exit_code=exit_code,
            output=self.stdout or "",
            stderr=self.stderr or "",
            timed_out=self.timed_out,
        )


BashEvent = Annotated[BashCommand | BashOutput, Field(discriminator="kind")]
"""A command or an output, told apart by `kind`."""


class BashEventPage(WireAnswer):
    """One page of GET /api/bash/bash_events/search."""

    items: list[BashEvent]
    next_page_id: str | None = Field(
        default=None, description="Pass as `page_id` to get the next page; null on the last."
    )
