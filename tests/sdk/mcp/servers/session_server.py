"""A streamable-HTTP MCP server for the session tests, written with the `mcp` package.

    python session_server.py PORT [STATS_FILE]

Tools: `echo` (its text back, with this process's pid), `mixed` (text, an image, text: in
that order), `lookup` (annotated read-only), `wipe` (annotated destructive).

It speaks only the session-based protocol versions (initialize handshake, `Mcp-Session-Id`),
as most third-party servers still do: a request announcing a newer version is answered as
such a server would, so the client falls back to the handshake. A middleware counts the
HTTP requests per method and writes `{"POST": n, "DELETE": n, ...}` to STATS_FILE after each
one, so a test can see whether a client ended its session (DELETE).
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import uvicorn
from mcp.server.mcpserver import Image, MCPServer
from mcp_types import TextContent, ToolAnnotations
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

server = MCPServer("session-tools", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """The text back, with the server's pid (a restarted server has another one)."""
    return f"{text} from {os.getpid()}"


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = (1).to_bytes(4, "big") + (1).to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\x00\xff\x00"))
        + chunk(b"IEND", b"")
    )


@server.tool(structured_output=False)
def mixed() -> list[Any]:
    """Text, then an image, then text."""
    return [
        TextContent(type="text", text="before the image"),
        Image(data=_png(), format="png"),
        TextContent(type="text", text="after the image"),
    ]


@server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
def lookup(key: str) -> str:
    """Read a value (changes nothing)."""
    return f"value of {key}"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def wipe(target: str) -> str:
    """Delete something."""
    return f"wiped {target}"


class CountRequests:
    """ASGI middleware: count HTTP requests by method into a JSON file."""

    def __init__(self, app: Any, stats_file: Path | None) -> None:
        self.app = app
        self.stats_file = stats_file
        self.counts: Counter[str] = Counter()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            scope = {**scope, "headers": [h for h in scope["headers"] if not _modern(h)]}
        if scope["type"] == "http" and self.stats_file is not None:
            self.counts[scope["method"]] += 1
            tmp = self.stats_file.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.counts))
            os.replace(tmp, self.stats_file)
        await self.app(scope, receive, send)


def _modern(header: tuple[bytes, bytes]) -> bool:
    """A protocol-version header naming a version newer than the session-based ones."""
    name, value = header
    return name == b"mcp-protocol-version" and value.decode() not in HANDSHAKE_PROTOCOL_VERSIONS


if __name__ == "__main__":
    port = int(sys.argv[1])
    stats = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    app = CountRequests(server.streamable_http_app(host="127.0.0.1"), stats)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
