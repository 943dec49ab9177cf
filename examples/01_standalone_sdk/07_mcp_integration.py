"""MCP: an agent that uses the tools of an MCP server.

This file is both the agent script and the MCP server it starts: run with `--serve`, it is a
small stdio MCP server (written with the `mcp` package) offering `count_words` and
`color_swatch` (which answers with an image). The agent gets those tools through
`mcp_config`, next to the terminal; the conversation starts the server and stops it on close.

Run it:
    export LLM_MODEL=openai/gpt-4o-mini LLM_API_KEY=sk-...   # LLM_BASE_URL for local servers
    uv run python examples/01_standalone_sdk/07_mcp_integration.py

Exits 0 when the agent used an MCP tool, 1 when it did not, 2 without an LLM.
Add `"fetch": MCPServer(command="uvx", args=["mcp-server-fetch"])` to `mcp_config` for a
server from the registry (it needs `uv` and network access the first time).
"""

import sys
import tempfile
import zlib

from openhands.sdk import (
    LLM,
    Agent,
    Conversation,
    Event,
    ObservationEvent,
    SystemPromptEvent,
    Tool,
)
from openhands.sdk.llm import ImageContent, LLMConfigurationError
from openhands.sdk.mcp import MCPServer

TASK = (
    "How many words are in the sentence 'the quick brown fox jumps over the lazy dog'? "
    "Use the count_words tool, then show me a swatch of the color #3366ff with color_swatch."
)


def serve() -> None:
    """The MCP server: two tools over stdin/stdout."""
    from mcp.server.mcpserver import Image
    from mcp.server.mcpserver import MCPServer as Server

    server = Server("text-tools", log_level="WARNING")

    @server.tool()
    def count_words(text: str) -> str:
        """Count the words of `text`."""
        return str(len(text.split()))

    @server.tool()
    def color_swatch(hex_color: str) -> Image:
        """A 16x16 PNG filled with `hex_color` (like #3366ff)."""
        rgb = bytes.fromhex(hex_color.lstrip("#"))
        return Image(data=_png(16, rgb), format="png")

    server.run()


def _png(size: int, rgb: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = size.to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    pixels = zlib.compress((b"\x00" + rgb * size) * size)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def show(event: Event) -> None:
    """Print what the MCP tools answered."""
    if isinstance(event, ObservationEvent) and event.tool_name in ("count_words", "color_swatch"):
        parts = [
            f"<image, {len(p.image_urls[0])} chars>" if isinstance(p, ImageContent) else p.text
            for p in event.content
        ]
        print(f"[{event.tool_name}] {' '.join(parts)}", flush=True)


def main() -> int:
    """Run the agent with the MCP server's tools; return the exit code."""
    try:
        llm = LLM.from_env(usage_id="agent")
    except LLMConfigurationError as exc:
        print(f"07_mcp_integration: {exc}", file=sys.stderr)
        return 2

    agent = Agent(
        llm=llm,
        tools=[Tool(name="terminal")],
        mcp_config={
            "text": MCPServer(command=sys.executable, args=[__file__, "--serve"], timeout=30),
        },
    )
    with tempfile.TemporaryDirectory(prefix="mcp-demo-") as workspace:
        conversation = Conversation(agent, workspace=workspace, callbacks=[show])
        try:
            prompt = next(e for e in conversation.state.events if isinstance(e, SystemPromptEvent))
            print(f"tools: {', '.join(t['function']['name'] for t in prompt.tools)}", flush=True)
            conversation.send_message(TASK)
            conversation.run()
            used = any(
                isinstance(e, ObservationEvent) and e.tool_name == "count_words"
                for e in conversation.state.events
            )
        finally:
            conversation.close()  # stops the MCP server
    print(f"cost: ${llm.metrics.accumulated_cost:.4f}")
    return 0 if used else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        sys.exit(main())
