"""`MCPClient`: one MCP server, connected for one conversation, used from synchronous code.

The client is the synchronous face; its `Connection` (`connection.py`) is the task on the
shared MCP loop that holds the session, and says how start-up, calls and `close()` are
bounded and how stdio servers are stopped. An `MCPClient` dropped without `close()` stops its
server when it is garbage-collected.

Imports the `mcp` package: only load this module when a conversation starts servers.
"""

from __future__ import annotations

import weakref
from typing import Any

import mcp_types
from openhands.sdk.mcp.config import MCPServer
from openhands.sdk.mcp.connection import (
    CALL_GRACE,
    CLOSE_TIMEOUT,
    EXIT_NOTICE_SECONDS,
    MAX_TOOL_PAGES,
    STOP_GRACE,
    Connection,
)
from openhands.sdk.mcp.errors import MCPError, MCPTimeoutError

# The limits lived here before the split; they stay importable from here.
__all__ = [
    "CALL_GRACE",
    "CLOSE_TIMEOUT",
    "EXIT_NOTICE_SECONDS",
    "MAX_TOOL_PAGES",
    "STOP_GRACE",
    "MCPClient",
]


class MCPClient:
    """A connection to one MCP server (`name`, `server`), for one conversation.

    `connect()` starts the server (or reaches it), does the handshake and lists its tools;
    `call_tool()` runs one tool; `close()` ends it all. Safe to use from several threads.
    """

    def __init__(self, name: str, server: MCPServer, *, working_dir: str | None = None) -> None:
        self.name = name
        self.server = server
        self._connection = Connection(name, server, working_dir)
        # A client dropped without close() (a conversation only `del`-ed) stops its server.
        self._finalizer = weakref.finalize(self, Connection.abandon, self._connection)
        self._finalizer.atexit = False  # at exit, _kill_all_at_exit does it synchronously

    def __repr__(self) -> str:
        return f"MCPClient({self.name!r}, transport={self.server.effective_transport!r})"

    @property
    def tools(self) -> list[mcp_types.Tool]:
        """The tools the server listed when it connected (empty before)."""
        return self._connection.tools

    @property
    def pid(self) -> int | None:
        """The pid of a stdio server's process, once started."""
        process = self._connection.process
        return process.pid if process is not None else None

    @property
    def is_connected(self) -> bool:
        """True while the session is open and (for stdio) the process runs."""
        return self._connection.unavailable_reason() is None

    def start(self) -> None:
        """Begin connecting in the background; `wait_connected()` gets the outcome."""
        self._connection.start()

    def wait_connected(self, timeout: float | None = None) -> list[mcp_types.Tool]:
        """Wait for the connection started by `start()`; return the server's tools.

        Raises MCPTimeoutError when the server did not start within its `startup_timeout`
        (or `timeout`, if shorter), MCPError when it failed; the client is closed then.
        """
        limit = self.server.startup_timeout if timeout is None else timeout
        try:
            return self._connection.ready.result(limit + CALL_GRACE)
        except MCPError:  # first: MCPTimeoutError is a TimeoutError too
            self.close()
            raise
        except TimeoutError:
            self.close()
            raise MCPTimeoutError(
                f"MCP server {self.name!r} did not start within {limit:g} s", limit
            ) from None

    def connect(self, timeout: float | None = None) -> list[mcp_types.Tool]:
        """Start the server, do the MCP handshake and list its tools (bounded, see above)."""
        self.start()
        return self.wait_connected(timeout)

    def call_tool(self, tool: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        """Call `tool` with `arguments`; at most `server.tool_timeout` seconds.

        Raises MCPTimeoutError on timeout and MCPError when the server is gone or refuses
        the request. A result with `is_error` (the tool failed) is returned, not raised.
        """
        return self._connection.call_tool(tool, arguments)

    def close(self) -> None:
        """Stop the server (a stdio process tree is killed) or end the HTTP session. Idempotent."""
        self._finalizer.detach()
        self._connection.close()

    sync_close = close

    def __enter__(self) -> MCPClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
