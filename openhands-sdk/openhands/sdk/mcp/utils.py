"""`create_mcp_tools`: start the servers of an MCP config at once and make their tools.

Imports the `mcp` package: only load this module when a conversation starts servers.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any

from openhands.sdk.mcp.client import MCPClient
from openhands.sdk.mcp.config import MCPServer, coerce_mcp_config, enabled_mcp_servers
from openhands.sdk.mcp.errors import MCPError
from openhands.sdk.mcp.tool import MCPToolDefinition, llm_tool_name

logger = logging.getLogger(__name__)


def mcp_tool_name(server: str, tool: str, *, prefixed: bool) -> str:
    """What the LLM calls tool `tool` of `server`: `<server>_<tool>` when several servers
    are configured, the tool's own name when there is one (as the reference SDK does)."""
    return llm_tool_name(f"{server}_{tool}" if prefixed else tool)


def create_mcp_tools(
    mcp_config: Mapping[str, MCPServer] | Mapping[str, Any],
    timeout: float | None = None,
    *,
    working_dir: str | None = None,
    keep: Callable[[str], object] | None = None,
    reserved: Collection[str] = (),
) -> list[MCPToolDefinition]:
    """Start every enabled server at once and return the tools they list.

    A server that cannot be started (missing command, crash, no answer within its
    `startup_timeout`, or `timeout` seconds overall when given) is logged as a warning and
    skipped: the others still give their tools. `keep(name)` filters tools by the name the
    LLM will call; a name in `reserved` (another tool has it) is skipped with a warning. A
    server left with no tool is stopped at once. Close a tool to stop its server (every
    tool of a server shares one `MCPClient`); stdio servers are killed at exit anyway.
    """
    servers = enabled_mcp_servers(coerce_mcp_config(mcp_config))
    if not servers:
        return []
    prefixed = len(servers) > 1
    deadline = time.monotonic() + timeout if timeout is not None else None
    clients = [MCPClient(name, server, working_dir=working_dir) for name, server in servers.items()]
    tools: list[MCPToolDefinition] = []
    taken = set(reserved)
    try:
        for client in clients:
            client.start()
        for client in clients:
            limit = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                listed = client.wait_connected(limit)
            except MCPError as exc:
                logger.warning("%s. The agent works without this server's tools.", exc)
                continue
            except Exception:
                logger.exception("MCP server %r could not be used", client.name)
                client.close()
                continue
            made: list[MCPToolDefinition] = []
            for mcp_tool in listed:
                name = mcp_tool_name(client.name, mcp_tool.name, prefixed=prefixed)
                if keep is not None and not keep(name):
                    continue
                if name in taken:
                    logger.warning(
                        "MCP tool %r of server %r is skipped: another tool is called %r",
                        mcp_tool.name,
                        client.name,
                        name,
                    )
                    continue
                taken.add(name)
                made.extend(MCPToolDefinition.create(mcp_tool, client, name=name))
            if not made:
                logger.info("MCP server %r gives no tool (after filtering); stopped", client.name)
                client.close()
            tools.extend(made)
    except BaseException:
        for client in clients:
            client.close()
        raise
    logger.info("MCP: %d tools from %d servers", len(tools), len(servers))
    return tools
