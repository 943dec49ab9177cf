"""How the client reaches a server: a stdio child process it owns, or an HTTP/SSE endpoint.

The stdio transport starts the process itself instead of using `mcp.client.stdio`, because
the process must be started the way every process the agent controls is (see
`openhands.sdk.workspace.processes`): in the workspace's sandbox (`sandbox.py`: it can write
only the workspace), in a session of its own, with the agent's environment
(this process's minus its secrets, plus the config's `env`), registered with the watchdog
so it dies with this process even on SIGKILL, and killed as a whole tree when the
conversation closes. `mcp.client.stdio` spawns with the full `os.environ` subset it
chooses and never tells anyone the pid.

Imports the `mcp` package: only load this module when a conversation starts servers.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import subprocess
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import mcp_types
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage
from openhands.sdk.mcp.config import MCPServer
from openhands.sdk.workspace.agent_env import agent_environment
from openhands.sdk.workspace.processes import kill_process_group, register_process_group
from openhands.sdk.workspace.sandbox import sandbox_command

logger = logging.getLogger(__name__)

STDERR_TAIL_LINES = 20
"""How many of a server's last stderr lines are kept, to explain why it failed."""

STOP_GRACE_SECONDS = 1.0
"""After its stdin closes, how long a stdio server may take to exit before it is killed."""

REAP_SECONDS = 5.0
"""How long to wait for a killed server to be reaped before giving up on it (never hangs)."""

CONNECT_TIMEOUT = 30.0
"""Seconds to open an HTTP connection to a remote server."""

DEFAULT_SSE_READ_TIMEOUT = 300.0
"""Seconds an HTTP/SSE stream may stay silent when `sse_read_timeout` is not set."""


@dataclass
class ServerProcess:
    """What is known about a stdio server's process: pid, exit code, last stderr lines."""

    pid: int | None = None
    returncode: int | None = None
    stderr: deque[str] = field(default_factory=lambda: deque(maxlen=STDERR_TAIL_LINES))
    connected: bool = False
    """Set once the session is up: an exit before that is reported as a start-up failure."""
    stopping: bool = False

    def describe(self) -> str:
        """`exit code N; stderr: ...` as far as known, for error messages ("" if nothing)."""
        parts = []
        if self.returncode is not None:
            parts.append(f"exit code {self.returncode}")
        tail = " | ".join(line for line in list(self.stderr)[-3:] if line)
        if tail:
            parts.append(f"stderr: {tail[-500:]}")
        return "; ".join(parts)


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:  # the session reports it; a chatty server keeps working
        return exc
    return SessionMessage(message)


def server_environment(server: MCPServer) -> dict[str, str]:
    """The environment of a stdio server: the agent's environment plus the config's `env`."""
    env = agent_environment()
    env.update({name: secret.get_secret_value() for name, secret in (server.env or {}).items()})
    return env


def server_cwd(server: MCPServer, working_dir: str | None) -> str | None:
    """Where a stdio server runs: `cwd` (relative to the workspace), else the workspace."""
    if server.cwd is None:
        return working_dir
    path = Path(server.cwd).expanduser()
    if not path.is_absolute() and working_dir is not None:
        path = Path(working_dir) / path
    return str(path)


@asynccontextmanager
async def stdio_transport(
    name: str, server: MCPServer, working_dir: str | None, process: ServerProcess
) -> AsyncIterator[TransportStreams]:
    """Run `server.command` as a guarded child and talk JSON-RPC lines over its stdio."""
    assert server.command is not None
    cwd = server_cwd(server, working_dir)
    env = server_environment(server)
    command = server.command
    if os.sep in command and cwd is not None:
        command = os.path.join(cwd, command)  # relative to where it runs, not to this process
    if shutil.which(command, path=env.get("PATH", os.defpath)) is None:
        # Said here, not by the sandbox's shell: the same error with the sandbox on or off.
        raise FileNotFoundError(errno.ENOENT, "command not found", server.command)
    argv = sandbox_command(
        [server.command, *(server.args or [])],
        workspace=working_dir or cwd or os.getcwd(),
        cwd=cwd,
    )
    child = await anyio.open_process(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    register_process_group(child.pid)
    process.pid = child.pid
    logger.debug("MCP server %r started as pid %d", name, child.pid)

    to_client, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage](0)
    stdout_done = anyio.Event()

    async def read_stdout() -> None:
        assert child.stdout is not None
        buffer = bytearray()
        try:
            async with to_client:
                async for chunk in child.stdout:
                    buffer.extend(chunk)
                    while (end := buffer.find(b"\n")) >= 0:
                        line = bytes(buffer[:end])
                        del buffer[: end + 1]
                        if line.strip():
                            await to_client.send(_parse(line))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            stdout_done.set()

    async def write_stdin() -> None:
        assert child.stdin is not None
        try:
            async with from_client:
                async for message in from_client:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await child.stdin.send(text.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server stopped reading: end the session instead of letting requests hang.
            await to_client.aclose()

    async def read_stderr() -> None:
        assert child.stderr is not None
        buffer = bytearray()
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for chunk in child.stderr:
                buffer.extend(chunk)
                while (end := buffer.find(b"\n")) >= 0:
                    line = bytes(buffer[:end]).decode(errors="replace").rstrip()
                    del buffer[: end + 1]
                    process.stderr.append(line)
                    logger.debug("MCP server %r: %s", name, line)
            if buffer:
                process.stderr.append(bytes(buffer).decode(errors="replace").rstrip())

    async def watch_exit() -> None:
        code = await child.wait()
        process.returncode = code
        if process.connected and not process.stopping:
            logger.warning("MCP server %r exited (%s)", name, process.describe())
        # A grandchild may still hold stdout open: end the session anyway, once what the
        # server wrote before it died has been read.
        with anyio.move_on_after(1.0):
            await stdout_done.wait()
        await to_client.aclose()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stdout)
        tasks.start_soon(write_stdin)
        tasks.start_soon(read_stderr)
        tasks.start_soon(watch_exit)
        try:
            yield from_server, to_server
        finally:
            process.stopping = True
            with anyio.CancelScope(shield=True):
                await _stop(child)
            tasks.cancel_scope.cancel()


async def _stop(child: anyio.abc.Process) -> None:
    """Close stdin, give the server a moment to exit, then kill its whole tree and reap it."""
    if child.stdin is not None:
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await child.stdin.aclose()
    with anyio.move_on_after(STOP_GRACE_SECONDS):
        await child.wait()
    # Also when it exited by itself: children it started may still run in its session.
    await anyio.to_thread.run_sync(kill_process_group, child.pid)
    with anyio.move_on_after(REAP_SECONDS) as scope:
        await child.aclose()
    if scope.cancelled_caught:
        logger.warning("MCP server process %d did not go away after SIGKILL", child.pid)


@asynccontextmanager
async def http_transport(server: MCPServer) -> AsyncIterator[TransportStreams]:
    """Streamable HTTP to `server.url`, sending `server.headers`."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    assert server.url is not None
    timeout = httpx2.Timeout(
        CONNECT_TIMEOUT, read=server.sse_read_timeout or DEFAULT_SSE_READ_TIMEOUT
    )
    async with (
        httpx2.AsyncClient(headers=_headers(server), timeout=timeout) as http,
        streamable_http_client(server.url, http_client=http) as streams,
    ):
        yield streams


@asynccontextmanager
async def sse_transport(server: MCPServer) -> AsyncIterator[TransportStreams]:
    """The older HTTP+SSE transport to `server.url`, sending `server.headers`."""
    from mcp.client.sse import sse_client

    assert server.url is not None
    async with sse_client(
        server.url,
        headers=_headers(server),
        timeout=CONNECT_TIMEOUT,
        sse_read_timeout=server.sse_read_timeout or DEFAULT_SSE_READ_TIMEOUT,
    ) as streams:
        yield streams


def _headers(server: MCPServer) -> dict[str, Any]:
    return {name: value.get_secret_value() for name, value in (server.headers or {}).items()}
