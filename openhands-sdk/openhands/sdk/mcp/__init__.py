"""MCP (Model Context Protocol): tools from MCP servers for an agent.

`Agent(mcp_config={"mcpServers": {...}})` is all most users need; a conversation then starts
the servers and offers their tools to the LLM (see docs/mcp.md). Importing this package is
cheap: the `mcp` client package is loaded only when a server is started, i.e. when one of
the names below other than `MCPServer`, `MCPError`, `MCPTimeoutError` and
`coerce_mcp_config` is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openhands.sdk.mcp.config import MCPServer, coerce_mcp_config, enabled_mcp_servers
from openhands.sdk.mcp.errors import MCPError, MCPTimeoutError
from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from openhands.sdk.mcp.client import MCPClient
    from openhands.sdk.mcp.tool import (
        MCPToolAction,
        MCPToolDefinition,
        MCPToolExecutor,
        MCPToolObservation,
    )
    from openhands.sdk.mcp.utils import create_mcp_tools

_LAZY = {
    "MCPClient": "openhands.sdk.mcp.client",
    "MCPToolAction": "openhands.sdk.mcp.tool",
    "MCPToolDefinition": "openhands.sdk.mcp.tool",
    "MCPToolExecutor": "openhands.sdk.mcp.tool",
    "MCPToolObservation": "openhands.sdk.mcp.tool",
    "create_mcp_tools": "openhands.sdk.mcp.utils",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "MCPClient",
    "MCPError",
    "MCPServer",
    "MCPTimeoutError",
    "MCPToolAction",
    "MCPToolDefinition",
    "MCPToolExecutor",
    "MCPToolObservation",
    "coerce_mcp_config",
    "create_mcp_tools",
    "enabled_mcp_servers",
]
