"""`RemoteWorkspace`: a workspace that lives on an agent server.

Besides running commands there, it reads what the server stores for its agents: the LLM
(`get_llm`, from /api/settings or a profile of /api/profiles), the names of its secrets
(`get_secrets`, as `LookupSecret`s a conversation on that server resolves by name) and its
MCP servers (`get_mcp_config`). The server never sends a key back: the LLM comes without
one, and the server fills it in again when a conversation or goal uses that LLM.
"""

from __future__ import annotations

from contextlib import closing
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote

from openhands.sdk.errors import NotFoundError
from openhands.sdk.llm.errors import LLMConfigurationError
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

if TYPE_CHECKING:
    from openhands.sdk.llm import LLM
    from openhands.sdk.mcp.config import MCPServer
    from openhands.sdk.remote.transport import ServerClient
    from openhands.sdk.secret import LookupSecret
    from openhands.sdk.settings import SettingsResponse
    from openhands.sdk.workspace.shell import CommandResult

PROFILE_USAGE_PREFIX = "profile:"
"""The usage_id of an LLM built from a profile (the server matches it to fill in the key)."""


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
        # Loaded when used: `import openhands.sdk` loads this class.
        from openhands.sdk.remote.transport import ServerClient
        from openhands.sdk.wire import BashOutput, ExecuteCommandRequest, to_wire

        request = ExecuteCommandRequest(
            command=command, cwd=cwd or self.working_dir, timeout=timeout
        )
        client = ServerClient(self.host, self.api_key, timeout=timeout + 30)
        try:
            body = client.request("POST", "/api/bash/execute_bash_command", json=to_wire(request))
        finally:
            client.close()
        # This server's answer and the reference server's are both a BashOutput.
        return BashOutput.model_validate(body).to_result(command)

    # -- what the server stores for its agents -----------------------------------------------

    def get_llm(self, profile_name: str | None = None, **llm_kwargs: Any) -> LLM:
        """The LLM the server stores: profile `profile_name`, else its active profile, else
        the settings' LLM; `llm_kwargs` override fields (e.g. `temperature=0.5`).

        It has no `api_key` (the server never sends one back): a conversation or goal on
        this server gets the stored key when it uses this LLM unchanged (same model and base
        URL). Raises `NotFoundError` (a `FileNotFoundError`) for an unknown profile,
        `LLMConfigurationError` (a `ValueError`) if the server stores no LLM, and the remote
        client's errors when the server refuses or cannot be reached.
        """
        from openhands.sdk.llm import LLM
        from openhands.sdk.remote.errors import RemoteConversationNotFoundError

        with closing(self._client()) as client:
            if profile_name is None:
                settings = self._settings(client)
                profile_name = settings.active_profile or None
                if profile_name is None:
                    data = settings.agent_settings.get("llm")
                    if not isinstance(data, dict):
                        raise LLMConfigurationError(
                            f"The agent server at {self.host} stores no LLM: store one with "
                            'PATCH /api/settings {"agent_settings_diff": {"llm": {...}}}, or '
                            "name a profile."
                        )
                    return LLM.model_validate({**data, **llm_kwargs})
            try:
                body = client.request(
                    "GET",
                    f"/api/profiles/{quote(profile_name, safe='')}",
                    not_found=f"LLM profile {profile_name!r}",
                )
            except RemoteConversationNotFoundError as exc:
                raise NotFoundError(str(exc)) from exc
        config = dict(body.get("config") or {})
        config["usage_id"] = f"{PROFILE_USAGE_PREFIX}{profile_name}"
        return LLM.model_validate({**config, **llm_kwargs})

    def get_secrets(self, names: list[str] | None = None) -> dict[str, LookupSecret]:
        """`LookupSecret`s for the secrets the server stores (all, or those in `names`).

        Give them to a conversation on this server (`secrets=` of its start request): the
        server reads each value when a command names it; the values never reach this client.
        """
        from openhands.sdk.secret import LookupSecret
        from openhands.sdk.settings import SecretsListResponse

        with closing(self._client()) as client:
            body = client.request("GET", "/api/settings/secrets")
            headers = client.headers
        listed = SecretsListResponse.model_validate(body)
        return {
            item.name: LookupSecret(
                url=f"{self.host}/api/settings/secrets/{item.name}",
                headers={name: SecretStr(value) for name, value in headers.items()},
                description=item.description,
            )
            for item in listed.secrets
            if names is None or item.name in names
        }

    def get_mcp_config(self) -> dict[str, MCPServer]:
        """The MCP servers the server stores, by name ({} when none).

        The values of their `env` and `headers` stay on the server (only the names show
        there), so they are left out here.
        """
        from openhands.sdk.mcp.config import MCPServer

        with closing(self._client()) as client:
            settings = self._settings(client)
        servers = settings.agent_settings.get("mcp_config") or {}
        found: dict[str, MCPServer] = {}
        for name, spec in servers.items():
            data = dict(spec)
            for field in ("env", "headers"):
                values = data.get(field)
                if isinstance(values, dict):
                    data[field] = {k: v for k, v in values.items() if v is not None} or None
            found[name] = MCPServer.model_validate(data)
        return found

    def _client(self) -> ServerClient:
        from openhands.sdk.remote.transport import ServerClient

        return ServerClient(self.host, self.api_key)

    def _settings(self, client: ServerClient) -> SettingsResponse:
        from openhands.sdk.settings import SettingsResponse

        return SettingsResponse.model_validate(client.request("GET", "/api/settings"))
