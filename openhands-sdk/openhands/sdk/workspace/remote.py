"""`RemoteWorkspace`: a workspace that lives on an agent server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

if TYPE_CHECKING:
    from openhands.sdk.workspace.shell import CommandResult


class RemoteWorkspace(BaseModel):
    """Where a `RemoteConversation` runs: an agent server URL plus its session key."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    kind: Literal["RemoteWorkspace"] = "RemoteWorkspace"
    host: str = Field(description="Agent server base URL, e.g. 'http://127.0.0.1:8000'.")
    api_key: SecretStr | None = Field(default=None, description="Sent as X-Session-API-Key.")
    working_dir: str = Field(default="workspace/project", description="Folder on the server.")

    @field_validator("host")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"host must be an http(s) URL, got {value!r}")
        return value.rstrip("/")

    def execute_command(
        self, command: str, cwd: str | None = None, timeout: float = 300.0
    ) -> CommandResult:
        """Run `command` with bash on the server, in `cwd` (default: `working_dir`), and
        return its result (a failing command is a result, not an exception). Raises the remote
        client's errors when the server cannot be reached or refuses (e.g. a wrong key)."""
        # The HTTP client lives with the remote conversation; loaded only when used.
        from openhands.sdk.conversation.remote.client import RemoteClient
        from openhands.sdk.wire import BashOutput, ExecuteCommandRequest, to_wire

        request = ExecuteCommandRequest(
            command=command, cwd=cwd or self.working_dir, timeout=timeout
        )
        client = RemoteClient(self.host, self.api_key, timeout=timeout + 30)
        try:
            body = client.request("POST", "/api/bash/execute_bash_command", json=to_wire(request))
        finally:
            client.close()
        # This server's answer and the reference server's are both a BashOutput.
        return BashOutput.model_validate(body).to_result(command)
