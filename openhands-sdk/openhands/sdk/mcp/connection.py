"""`Connection`: the part of an `MCPClient` that lives on the shared MCP loop.

Each connection is one task on the shared MCP loop (`_loop.py`) that enters the `mcp`
client (transport included) and stays inside it until `close()`; requests are separate
tasks on the same loop that use the open session. The caller's thread only ever waits on a
future with a timeout: start-up is bounded by `startup_timeout`, each call by `timeout`, and
`close()` by `CLOSE_TIMEOUT`. A request that finds the HTTP session lost reconnects once.

Stdio servers never outlive their conversation: `close()` stops them (stdin closed, then the
whole process tree killed), a connection whose client was dropped is abandoned (stopped),
every one still running at interpreter exit is killed then, and a SIGKILL of this process
leaves them to the watchdog they are registered with.

Imports the `mcp` package: only load this module when a conversation starts servers.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import importlib.metadata
import logging
import threading
import time
from contextlib import AbstractAsyncContextManager
from typing import Any
from urllib.parse import urlsplit

import anyio
import mcp
import mcp_types
from mcp.client._transport import TransportStreams
from mcp.shared.exceptions import MCPError as ProtocolError
from openhands.sdk.mcp import _loop
from openhands.sdk.mcp.config import MCPServer
from openhands.sdk.mcp.errors import MCPError, MCPTimeoutError
from openhands.sdk.mcp.transports import (
    ServerProcess,
    http_transport,
    sse_transport,
    stdio_transport,
)
from openhands.sdk.workspace.processes import kill_process_group

logger = logging.getLogger(__name__)

CLOSE_TIMEOUT = 10.0
"""Seconds `close()` waits for a server to stop; a stdio server is then killed outright."""

STOP_GRACE = 5.0
"""Seconds a closing connection may take to end its session politely (an HTTP server gets
its session-termination request) before it is cut off."""

CALL_GRACE = 5.0
"""Seconds past a call's own timeout before the caller stops waiting for the loop."""

EXIT_NOTICE_SECONDS = 1.0
"""After a connection drops, how long to wait for the exit code to explain it."""

MAX_TOOL_PAGES = 100
"""Pages of `tools/list` read at most (a server whose cursor never ends cannot hang start-up)."""


def _sdk_version() -> str:
    try:
        return importlib.metadata.version("openhands-sdk")
    except importlib.metadata.PackageNotFoundError:
        return "0"


_CLIENT_INFO = mcp_types.Implementation(name="openhands-sdk", version=_sdk_version())
"""How this client introduces itself in the MCP handshake."""

_live_lock = threading.Lock()
_live: set[Connection] = set()


class Connection:
    """The part of a client the loop's task holds: no reference back to the `MCPClient`."""

    def __init__(self, name: str, server: MCPServer, working_dir: str | None) -> None:
        self.name = name
        self.server = server
        self.working_dir = working_dir
        self.process = ServerProcess() if server.effective_transport == "stdio" else None
        self.ready: concurrent.futures.Future[list[mcp_types.Tool]] = concurrent.futures.Future()
        self.finished = threading.Event()
        self.tools: list[mcp_types.Tool] = []
        self._lock = threading.Lock()
        self._started = False
        self._closing = False
        self._timed_out = False
        self._scope: anyio.CancelScope | None = None
        self._stop: anyio.Event | None = None
        self._session: mcp.Client | None = None
        self._failure: str | None = None
        self._stale = False  # an HTTP/SSE connection that failed: reconnect at the next call
        self._reconnect_lock = threading.Lock()

    # -- life cycle (caller side) -------------------------------------------------------------

    def start(self) -> None:
        with self._lock:
            if self._started or self._closing:
                if self._closing and not self.ready.done():
                    self.ready.set_exception(MCPError(f"MCP server {self.name!r} was closed"))
                return
            self._started = True
        with _live_lock:
            _live.add(self)
        _ensure_exit_hook()
        _loop.submit(self._serve())

    def close(self) -> None:
        with self._lock:
            if self._closing:
                return
            self._closing = True
            started = self._started
        if not started:
            if not self.ready.done():
                self.ready.set_exception(MCPError(f"MCP server {self.name!r} was closed"))
            return
        _loop.call_soon(self._request_stop)
        if not self.finished.wait(CLOSE_TIMEOUT):
            logger.warning(
                "MCP server %r did not stop within %g s; killing it", self.name, CLOSE_TIMEOUT
            )
            self._kill_now()

    def abandon(self) -> None:
        """Stop without waiting (garbage collection of an unclosed client)."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
        _loop.call_soon(self._request_stop)

    def _kill_now(self) -> None:
        if self.process is not None and self.process.pid is not None:
            self.process.stopping = True
            kill_process_group(self.process.pid)

    # -- the connection task (loop side) ------------------------------------------------------

    def _cancel(self) -> None:
        if self._scope is not None:
            self._scope.cancel()

    def _request_stop(self) -> None:
        """Leave the session politely: the transport's exit then ends it (a stdio server's
        stdin is closed, an HTTP server gets its DELETE). Cut off after STOP_GRACE; before
        the session is up there is nothing to end, so it is cut off at once."""
        if self._stop is None or self._session is None:
            self._cancel()
            return
        self._stop.set()
        asyncio.get_running_loop().call_later(STOP_GRACE, self._cancel)

    def _startup_expired(self) -> None:
        if not self.ready.done():
            self._timed_out = True
            self._cancel()

    async def _serve(self) -> None:
        # This attempt's own future and event: a reconnect replaces the attributes.
        ready, finished = self.ready, self.finished
        timer = asyncio.get_running_loop().call_later(
            self.server.startup_timeout, self._startup_expired
        )
        error: BaseException | None = None
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                self._stop = anyio.Event()
                if self._closing:
                    scope.cancel()
                async with mcp.Client(self._transport(), client_info=_CLIENT_INFO) as client:
                    tools = await _list_tools(client)
                    timer.cancel()
                    self.tools = tools
                    self._session = client
                    if self.process is not None:
                        self.process.connected = True
                    ready.set_result(tools)
                    await self._stop.wait()
        except Exception as exc:  # reported to whoever waits, never raised into the loop
            error = exc
        finally:
            timer.cancel()
            self._session = None
            if error is not None and ready.done() and not self._closing:
                self._failure = _explain(error)
                logger.warning("MCP server %r: connection lost: %s", self.name, self._failure)
            if not ready.done():
                ready.set_exception(self._startup_error(error))
            with _live_lock:
                _live.discard(self)
            finished.set()

    def _transport(self) -> AbstractAsyncContextManager[TransportStreams]:
        kind = self.server.effective_transport
        if kind == "stdio":
            assert self.process is not None
            return stdio_transport(self.name, self.server, self.working_dir, self.process)
        if kind == "sse":
            return sse_transport(self.server)
        return http_transport(self.server)

    def _startup_error(self, error: BaseException | None) -> MCPError:
        where = self._where()
        if self._timed_out:
            detail = self._process_detail()
            return MCPTimeoutError(
                f"MCP server {self.name!r} ({where}) did not start within "
                f"{self.server.startup_timeout:g} s: it must start, answer the MCP handshake "
                "and list its tools in that time (raise `startup_timeout` if it needs longer, "
                f"e.g. to download itself){detail}",
                self.server.startup_timeout,
            )
        if error is None:
            return MCPError(f"MCP server {self.name!r} was closed before it was ready")
        leaf = _leaf(error)
        if isinstance(leaf, FileNotFoundError) and self.process is not None:
            reason = f"command {self.server.command!r} not found: install it or give its full path"
        elif isinstance(leaf, PermissionError) and self.process is not None:
            reason = f"command {self.server.command!r} cannot be executed: {leaf.strerror}"
        else:
            reason = _explain(error)
        detail = self._process_detail()
        if self.process is not None and self.process.returncode is not None:
            reason = "it exited during start-up"
        return MCPError(
            f"MCP server {self.name!r} ({where}) could not be started: {reason}{detail}"
        )

    def _where(self) -> str:
        if self.server.effective_transport == "stdio":
            return f"command {self.server.command!r}"
        return f"{self.server.effective_transport} {_safe_url(self.server.url or '')}"

    def _process_detail(self) -> str:
        if self.process is None:
            return ""
        if self.process.pid is not None and self.process.returncode is None:
            # Give the exit a moment to be noticed: "exit code 1" explains most failures.
            deadline = time.monotonic() + EXIT_NOTICE_SECONDS
            while self.process.returncode is None and time.monotonic() < deadline:
                if _loop.in_mcp_loop():
                    break
                time.sleep(0.02)
        described = self.process.describe()
        return f" ({described})" if described else ""

    # -- requests -----------------------------------------------------------------------------

    def unavailable_reason(self) -> str | None:
        """Why no request can be sent now, or None when the server is usable."""
        if self._closing:
            return f"MCP server {self.name!r} is closed"
        if self._session is None or self.finished.is_set():
            if self._failure:
                return f"MCP server {self.name!r} is not connected: {self._failure}"
            return f"MCP server {self.name!r} is not connected"
        if self.process is not None and self.process.returncode is not None:
            return (
                f"MCP server {self.name!r} is not running any more ({self.process.describe()}); "
                "its tools are unavailable until the conversation is reopened"
            )
        return None

    def call_tool(self, tool: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        remote = self.process is None
        if remote and not self._closing and (self._stale or self._session is None):
            self._reconnect()  # an HTTP server that restarted: a new session, then the call
        try:
            return self._call_once(tool, arguments)
        except MCPError as exc:
            if remote and _session_lost(exc.__cause__) and not self._closing:
                # The server does not know our session (it restarted): it ran nothing, so
                # the call is safe to send again on a new session.
                logger.info("MCP server %r lost our session; reconnecting", self.name)
                self._stale = True
                self._reconnect()
                return self._call_once(tool, arguments)
            if remote and not isinstance(exc, MCPTimeoutError):
                self._stale = True  # the connection failed mid-call: the next call reconnects
            raise

    def _reconnect(self) -> None:
        """Replace a lost HTTP/SSE session by a new one (bounded by `startup_timeout`)."""
        with self._reconnect_lock:
            if not self._stale and self._session is not None and not self.finished.is_set():
                return  # another thread reconnected meanwhile
            with self._lock:
                if self._closing:
                    raise MCPError(f"MCP server {self.name!r} is closed")
            _loop.call_soon(self._cancel)  # the old session is gone: no polite goodbye
            self.finished.wait(CLOSE_TIMEOUT)
            with self._lock:
                self.ready = concurrent.futures.Future()
                self.finished = threading.Event()
                self._started = False
                self._session = None
                self._stop = None
                self._scope = None
                self._failure = None
                self._timed_out = False
                self._stale = False
            self.start()
            limit = self.server.startup_timeout
            try:
                self.tools = self.ready.result(limit + CALL_GRACE)
            except TimeoutError:
                self._stale = True
                raise MCPTimeoutError(
                    f"MCP server {self.name!r} ({self._where()}) did not answer a new session "
                    f"within {limit:g} s; it is retried at the next call",
                    limit,
                ) from None
            except MCPError as exc:
                self._stale = True
                raise MCPError(
                    f"{exc}; the connection is tried again at the next call"
                ) from exc.__cause__

    def _call_once(self, tool: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        reason = self.unavailable_reason()
        session = self._session
        if reason is not None or session is None:
            raise MCPError(reason or f"MCP server {self.name!r} is not connected")
        timeout = self.server.tool_timeout
        future = _loop.submit(_call(session, tool, arguments, timeout))
        try:
            return future.result(timeout + CALL_GRACE)
        except TimeoutError:  # the call's own deadline, or the loop did not answer in time
            future.cancel()
            raise MCPTimeoutError(
                f"MCP tool {tool!r} of server {self.name!r} did not answer within "
                f"{timeout:g} s (the server's `timeout` setting); it may still be working",
                timeout,
            ) from None
        except Exception as exc:
            if self.process is not None:
                detail = self._process_detail()
                if self.process.returncode is not None:
                    raise MCPError(
                        f"MCP server {self.name!r} stopped during the call to {tool!r}{detail}; "
                        "its tools are unavailable until the conversation is reopened"
                    ) from exc
            raise MCPError(
                f"MCP tool {tool!r} of server {self.name!r} failed: {_explain(exc)}"
            ) from exc


async def _call(
    session: mcp.Client, tool: str, arguments: dict[str, Any], timeout: float
) -> mcp_types.CallToolResult:
    with anyio.fail_after(timeout):
        return await session.call_tool(tool, arguments)


async def _list_tools(client: mcp.Client) -> list[mcp_types.Tool]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _session_lost(error: BaseException | None) -> bool:
    """Whether the server refused a request because it does not know the session (an HTTP
    server that restarted answers 404 "Session not found" / "Session terminated")."""
    if error is None:
        return False
    leaf = _leaf(error)
    if not isinstance(leaf, ProtocolError):
        return False
    message = leaf.message.lower()
    return "session" in message and ("not found" in message or "terminated" in message)


def _leaf(error: BaseException) -> BaseException:
    """The first real exception inside (possibly nested) exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _explain(error: BaseException) -> str:
    leaf = _leaf(error)
    if isinstance(leaf, ProtocolError):
        return leaf.message
    text = str(leaf).strip()
    return f"{type(leaf).__name__}: {text}" if text else type(leaf).__name__


def _safe_url(url: str) -> str:
    """`url` without credentials or query (either may hold a token)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return f"{parts.scheme}://{host}{parts.path}" if parts.scheme else url.split("?")[0]


_exit_hook_registered = False


def _ensure_exit_hook() -> None:
    global _exit_hook_registered
    with _live_lock:
        if _exit_hook_registered:
            return
        _exit_hook_registered = True
    atexit.register(_kill_all_at_exit)


def _kill_all_at_exit() -> None:
    """Kill the stdio servers of conversations nobody closed (the loop thread dies with us)."""
    with _live_lock:
        connections = list(_live)
    for connection in connections:
        with contextlib.suppress(Exception):
            connection._kill_now()
