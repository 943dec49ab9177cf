"""Errors of the MCP client: a server that cannot be started, reached or used."""

from __future__ import annotations

from openhands.sdk.errors import OpenHandsError


class MCPError(OpenHandsError):
    """An MCP server could not be started, stopped answering, or refused a request.

    The message names the server and says what happened (exit code and the last lines the
    server wrote to stderr, when it is a process).
    """


class MCPConfigError(MCPError, ValueError):
    """An `mcp_config` has the wrong shape; the message shows the shape it takes."""


class MCPTimeoutError(MCPError, TimeoutError):
    """An MCP server did not answer in time (start-up or one request); `timeout` in seconds."""

    def __init__(self, message: str, timeout: float) -> None:
        super().__init__(message)
        self.timeout = timeout
