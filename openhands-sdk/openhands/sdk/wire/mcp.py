"""Wire models of MCP server checks (POST /api/mcp/test) and the named MCP servers kept in the
stored settings (/api/settings/mcp/{key}): the reference server's shapes."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from openhands.sdk.mcp.config import MCPServer
from openhands.sdk.wire.base import WIRE, WireAnswer, WireRequest
from pydantic import BaseModel, Field

MCP_SERVER_KEY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
"""A named MCP server's key: 1-64 letters, digits, '_', '.', '-' (a letter or digit first)."""


class MCPServerSpec(WireRequest, MCPServer):
    """An MCP server in a request body (POST /api/settings/mcp/{key}): `MCPServer`, with
    fields of other versions dropped (logged) instead of refused."""


class MCPToolCallSpec(BaseModel):
    """One tool to call once the server listed its tools (pick one that only reads)."""

    model_config = WIRE

    name: str = Field(min_length=1, max_length=256, description="The tool's name.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Passed unchanged.")


class MCPTestRequest(WireRequest):
    """Body of POST /api/mcp/test: an MCP server to try, without storing anything."""

    name: str = Field(
        default="test-server",
        min_length=1,
        max_length=128,
        description="The server's name in error messages.",
    )
    server: MCPServer = Field(
        description="The server: `command` (+ `args`, `env`, `cwd`) for stdio, or `url` (+ "
        "`headers`) for HTTP/SSE; `type` or `transport` names the transport."
    )
    timeout: float = Field(
        default=15.0, gt=0, le=120, description="Seconds to connect and list its tools."
    )
    tool_call: MCPToolCallSpec | None = Field(
        default=None, description="A tool to call after listing; its result is reported."
    )


class MCPToolCallResult(BaseModel):
    """What the requested tool call answered."""

    model_config = WIRE

    is_error: bool = Field(description="The result's isError flag.")
    text: str = Field(description="Its text content.")


class MCPTestSuccess(WireAnswer):
    """The server connected and listed its tools."""

    ok: Literal[True] = True
    tools: list[str] = Field(default_factory=list, description="The tools it offers.")
    tool_result: MCPToolCallResult | None = None


class MCPTestFailure(WireAnswer):
    """The server could not be started, reached or listed (an expected outcome of a check:
    answered 200)."""

    ok: Literal[False] = False
    error: str = Field(description="What went wrong.")
    error_kind: Literal["timeout", "connection", "unknown"]


MCPTestResponse = Annotated[MCPTestSuccess | MCPTestFailure, Field(discriminator="ok")]
