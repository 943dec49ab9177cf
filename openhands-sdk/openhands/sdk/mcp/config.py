"""`MCPServer`: how to reach one MCP server, and the `mcpServers` JSON it is read from.

This module imports only pydantic: an agent carries its MCP configuration without loading the
`mcp` package, which is imported when a conversation starts the servers.

The accepted shapes are the usual ones:

    {"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}}
    {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}
    {"fetch": MCPServer(command="uvx", args=["mcp-server-fetch"])}
    {"docs": {"url": "https://example.org/mcp", "headers": {"Authorization": "Bearer ..."}}}
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from openhands.sdk.mcp.errors import MCPConfigError
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    SerializationInfo,
    TypeAdapter,
    field_serializer,
    model_validator,
)

logger = logging.getLogger(__name__)

MCPTransport = Literal["stdio", "http", "streamable-http", "sse"]
"""How the client talks to a server: a child process's stdin/stdout, streamable HTTP, or SSE."""

DEFAULT_STARTUP_TIMEOUT = 30.0
"""Seconds a server gets to start, answer the handshake and list its tools."""

DEFAULT_TOOL_TIMEOUT = 300.0
"""Seconds one request (a tool call) may take when `MCPServer.timeout` is not set."""

_SSE_PATH = re.compile(r"/sse(/|$)")

# Keys other MCP clients write into the same JSON that mean nothing here.
_IGNORED_KEYS = frozenset({"autoApprove", "alwaysAllow", "disabledTools", "name"})


def _secret_map_for_json(value: dict[str, SecretStr] | None, info: SerializationInfo) -> Any:
    # Like `LLM.api_key`: the names stay visible, the values leave this process only when the
    # caller asks for them (context={"expose_secrets": True}, e.g. sending a spec to a server).
    if value is None:
        return None
    if isinstance(info.context, dict) and info.context.get("expose_secrets"):
        return {name: secret.get_secret_value() for name, secret in value.items()}
    if info.mode == "json":
        return dict.fromkeys(value)
    return value


# Only what was set is dumped: a stored agent reads like the JSON the user wrote. (Per field
# rather than a model serializer, so the OpenAPI output schema stays the model's.)
def _is_none(value: object) -> bool:
    return value is None


def _is_true(value: object) -> bool:
    return value is True


def _is_default_startup_timeout(value: object) -> bool:
    return value == DEFAULT_STARTUP_TIMEOUT


class MCPServer(BaseModel):
    """One MCP server: a command to run (stdio) or a URL to reach (streamable HTTP or SSE).

    Values in `env` and `headers` are secrets: they are never logged, and a JSON dump (what
    is written to disk and what the agent server answers) keeps their names with no value,
    unless dumped with `context={"expose_secrets": True}`.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    url: str | None = Field(
        default=None,
        exclude_if=_is_none,
        min_length=1,
        description="Endpoint of a remote server (http/sse).",
    )
    transport: MCPTransport | None = Field(
        default=None,
        exclude_if=_is_none,
        description="stdio, http (= streamable-http) or sse. Default: stdio with a `command`; "
        "with a `url`, sse when its path ends in /sse, else http.",
    )
    command: str | None = Field(
        default=None,
        exclude_if=_is_none,
        min_length=1,
        description="Program that runs a stdio server.",
    )
    args: list[str] | None = Field(
        default=None, exclude_if=_is_none, description="Arguments of `command`."
    )
    env: dict[str, SecretStr] | None = Field(
        default=None,
        exclude_if=_is_none,
        description="Variables added to the server's environment (the agent's environment: "
        "this process's minus its secrets). Secret: never logged or dumped in clear.",
    )
    cwd: str | None = Field(
        default=None,
        exclude_if=_is_none,
        description="Working directory of a stdio server; relative to the conversation's "
        "workspace, which is the default.",
    )
    headers: dict[str, SecretStr] | None = Field(
        default=None,
        exclude_if=_is_none,
        description="HTTP headers sent to a remote server. Secret, like `env`.",
    )
    timeout: float | None = Field(
        default=None,
        exclude_if=_is_none,
        gt=0,
        description="Seconds one request (a tool call) may take; None means "
        f"{DEFAULT_TOOL_TIMEOUT:.0f} s. There is no unlimited: a call always ends.",
    )
    startup_timeout: float = Field(
        default=DEFAULT_STARTUP_TIMEOUT,
        exclude_if=_is_default_startup_timeout,
        gt=0,
        description="Seconds to start the server, answer the handshake and list its tools.",
    )
    sse_read_timeout: float | None = Field(
        default=None,
        exclude_if=_is_none,
        gt=0,
        description="Seconds an HTTP/SSE stream may stay silent (300 s).",
    )
    keep_alive: bool | None = Field(
        default=None,
        exclude_if=_is_none,
        description="Accepted for compatibility; servers live as long as the "
        "conversation either way.",
    )
    description: str | None = Field(
        default=None, exclude_if=_is_none, description="What the server is for."
    )
    icon: str | None = Field(
        default=None, exclude_if=_is_none, description="An icon for user interfaces."
    )
    enabled: bool = Field(
        default=True,
        exclude_if=_is_true,
        description="A disabled server stays configured but is never started.",
    )

    @model_validator(mode="before")
    @classmethod
    def _common_spellings(cls, data: Any) -> Any:
        # Other MCP clients write `type` for the transport ("shttp" for streamable HTTP) and
        # `disabled: true`; accept those so a config copied from them works unchanged.
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        if "type" in data:
            kind = data.pop("type")
            data.setdefault("transport", kind)
        if data.get("transport") == "shttp":
            data["transport"] = "http"
        if "disabled" in data:
            data.setdefault("enabled", not data.pop("disabled"))
        ignored = sorted(key for key in data if key in _IGNORED_KEYS)
        for key in ignored:
            del data[key]
        if "auth" in data:
            raise ValueError(
                "auth: not supported here; send credentials as headers, e.g. "
                '"headers": {"Authorization": "Bearer <token>"}'
            )
        # A dumped config carries secret names without values: leave those variables unset.
        for key in ("env", "headers"):
            mapping = data.get(key)
            if isinstance(mapping, Mapping):
                data[key] = {name: value for name, value in mapping.items() if value is not None}
        return data

    @model_validator(mode="after")
    def _reachable(self) -> MCPServer:
        if self.transport is None and not self.command and not self.url:
            raise ValueError(
                "an MCP server needs a 'command' (stdio) or a 'url' (http, sse) to reach it"
            )
        if self.transport is None and self.command and self.url:
            raise ValueError(
                "an MCP server has both 'command' and 'url': set 'transport' to say which to use"
            )
        kind = self.effective_transport
        if kind == "stdio" and not self.command:
            raise ValueError("command: a stdio MCP server needs the program to run")
        if kind != "stdio" and not self.url:
            raise ValueError(f"url: a {kind} MCP server needs the endpoint URL")
        return self

    @property
    def effective_transport(self) -> Literal["stdio", "http", "sse"]:
        """The transport used: the explicit one, or what `command` / `url` imply."""
        if self.transport == "streamable-http":
            return "http"
        if self.transport is not None:
            return self.transport
        if self.command:
            return "stdio"
        if self.url and _SSE_PATH.search(urlsplit(self.url).path):
            return "sse"
        return "http"

    @property
    def tool_timeout(self) -> float:
        """Seconds one request may take (`timeout`, or the default)."""
        return self.timeout if self.timeout is not None else DEFAULT_TOOL_TIMEOUT

    @field_serializer("env", "headers", when_used="always")
    def _dump_secrets(self, value: dict[str, SecretStr] | None, info: SerializationInfo) -> Any:
        return _secret_map_for_json(value, info)


_SERVERS: TypeAdapter[dict[str, MCPServer]] | None = None


def coerce_mcp_config(value: Any) -> dict[str, MCPServer]:
    """Read an MCP configuration: `{"mcpServers": {name: ...}}` or `{name: ...}`.

    Each server may be an `MCPServer` or its JSON. Raises ValueError (a pydantic
    ValidationError) naming the server and field that is wrong.
    """
    global _SERVERS
    if value is None:
        return {}
    if isinstance(value, Mapping) and "mcpServers" in value:
        extra = sorted(key for key in value if key != "mcpServers")
        if extra:
            raise MCPConfigError(
                f"mcp_config: expected only 'mcpServers' beside it, got {extra}; put each "
                "server under 'mcpServers'"
            )
        value = value["mcpServers"] or {}
    if not isinstance(value, Mapping):
        raise MCPConfigError(
            'mcp_config: expected {"mcpServers": {name: server}} or {name: server}, got '
            f"{type(value).__name__}"
        )
    for name in value:
        if not isinstance(name, str) or not name.strip():
            raise MCPConfigError(
                f"mcp_config: server names must be non-empty strings, got {name!r}"
            )
    if _SERVERS is None:
        _SERVERS = TypeAdapter(dict[str, MCPServer])
    return _SERVERS.validate_python(dict(value))


def enabled_mcp_servers(config: Mapping[str, MCPServer]) -> dict[str, MCPServer]:
    """The servers to start: those not switched off with `enabled=False`."""
    return {name: server for name, server in config.items() if server.enabled}
