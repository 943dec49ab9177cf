"""`probe_mcp_server`: start (or reach) one MCP server, list its tools, maybe call one, stop
it. What POST /api/mcp/test answers, before a UI stores the server in the settings.

A stdio server runs like every process the agent starts: in the sandbox, with the server's
workspace folder (OH_WORKSPACE_PATH) as its workspace, without the server's secrets in its
environment.
"""

from __future__ import annotations

from pathlib import Path

from openhands.sdk.mcp.errors import MCPError, MCPTimeoutError
from openhands.sdk.wire.mcp import (
    MCPTestFailure,
    MCPTestRequest,
    MCPTestSuccess,
    MCPToolCallResult,
)

MAX_RESULT_CHARS = 20_000
"""How much of a tool call's text the answer carries."""


def probe_mcp_server(request: MCPTestRequest, workspace: Path) -> MCPTestSuccess | MCPTestFailure:
    """Try the server (blocking, bounded by `request.timeout` plus one tool call's timeout)."""
    from openhands.sdk.mcp.client import MCPClient  # loads `mcp`: only when a check runs

    workspace.mkdir(parents=True, exist_ok=True)
    server = request.server.model_copy(
        update={"startup_timeout": min(request.server.startup_timeout, request.timeout)}
    )
    client = MCPClient(request.name, server, working_dir=str(workspace))
    try:
        try:
            tools = client.connect(request.timeout)
        except MCPTimeoutError as exc:
            return MCPTestFailure(error=str(exc), error_kind="timeout")
        except MCPError as exc:
            return MCPTestFailure(error=str(exc), error_kind="connection")
        names = [tool.name for tool in tools]
        result = None
        if request.tool_call is not None:
            result = _call(client, request.tool_call.name, request.tool_call.arguments)
        return MCPTestSuccess(tools=names, tool_result=result)
    except Exception as exc:  # a server that misbehaves in a way the client does not name
        return MCPTestFailure(error=f"{type(exc).__name__}: {exc}", error_kind="unknown")
    finally:
        client.close()


def _call(client: object, name: str, arguments: dict[str, object]) -> MCPToolCallResult:
    from openhands.sdk.mcp.client import MCPClient

    assert isinstance(client, MCPClient)
    try:
        outcome = client.call_tool(name, dict(arguments))
    except MCPError as exc:
        return MCPToolCallResult(is_error=True, text=str(exc))
    text = "\n".join(
        getattr(part, "text", "") for part in outcome.content if getattr(part, "text", None)
    )
    return MCPToolCallResult(is_error=bool(outcome.is_error), text=text[:MAX_RESULT_CHARS])
