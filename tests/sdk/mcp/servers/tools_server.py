"""An MCP server for the tests, written with the `mcp` package: stdio, or streamable HTTP.

    python tools_server.py                     # stdio
    python tools_server.py http PORT           # streamable HTTP on 127.0.0.1:PORT, path /mcp

Tools: `add`, `echo_env` (reads a variable of its environment), `red_pixel` (an image),
`crash` (the process exits mid-call), `sleep` (answers after some seconds), `spawn_child`
(starts a long-lived grandchild and returns a marker in its command line), `header` (an HTTP request header),
`whoami` (pid and working directory).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
import zlib

from mcp.server.mcpserver import Context, Image, MCPServer

server = MCPServer("test-tools", log_level="WARNING")


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return str(a + b)


@server.tool()
def echo_env(name: str) -> str:
    """The value of environment variable `name`, or <unset>."""
    return os.environ.get(name, "<unset>")


def _png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@server.tool()
def red_pixel() -> Image:
    """A 1x1 red PNG."""
    return Image(data=_png(1, 1, (255, 0, 0)), format="png")


@server.tool()
def crash() -> str:
    """Exit the server process in the middle of the call."""
    os._exit(3)


@server.tool()
def sleep(seconds: float) -> str:
    """Answer after `seconds`."""
    time.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
def spawn_child() -> str:
    """Start a grandchild that sleeps for an hour; return a marker in its command line (a
    pid would mean nothing outside a sandbox's PID namespace)."""
    marker = f"grandchild-{uuid.uuid4().hex}"
    subprocess.Popen(
        [sys.executable, "-c", f"import time; time.sleep(3600)  # {marker}"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return marker


@server.tool()
def header(name: str, ctx: Context) -> str:
    """The value of HTTP request header `name` (streamable HTTP only), or <unset>."""
    headers = ctx.headers or {}
    return headers.get(name.lower(), "<unset>")


@server.tool()
def whoami() -> str:
    """This process's pid and working directory."""
    return f"{os.getpid()} {os.getcwd()}"


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
