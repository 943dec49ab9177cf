"""Wire models of `/api/bash`: run a command on the server, now or in the background."""

from __future__ import annotations

from openhands.sdk.wire.base import WireRequest
from pydantic import Field, field_validator


class ExecuteCommandRequest(WireRequest):
    """Body of POST /api/bash/execute_bash_command."""

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
