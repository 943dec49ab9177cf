"""REST route that checks an MCP server before it is stored: POST /api/mcp/test. Loaded on
first use (api/lazy.py)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.services.mcp_probe import probe_mcp_server
from openhands.sdk.wire.mcp import MCPTestFailure, MCPTestRequest, MCPTestResponse, MCPTestSuccess

router = APIRouter(prefix="/api/mcp", tags=["mcp"], route_class=CheckedRoute)


@router.post(
    "/test",
    response_model=MCPTestResponse,
    response_model_exclude_none=True,
    responses=error_responses(),
)
async def test_mcp_server(
    request: MCPTestRequest, http: Request
) -> MCPTestSuccess | MCPTestFailure:
    """Start (or reach) the server, list its tools and, if asked, call one tool; nothing is
    stored. A server that fails is answered 200 with `ok: false`, `error` and `error_kind`
    (`timeout`, `connection`, `unknown`): a failed check is an expected answer. A stdio
    server runs in the sandbox, in the server's workspace folder."""
    state = http.app.state
    return await state.pools.runs.run(probe_mcp_server, request, state.config.workspace_path)
