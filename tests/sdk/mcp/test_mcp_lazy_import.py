"""The `mcp` package is loaded only when a conversation starts MCP servers."""

from __future__ import annotations

import json
import subprocess
import sys

MCP_MODULES = ("mcp", "mcp_types", "anyio", "httpx2", "jsonschema")


def _loaded_after(code: str) -> list[str]:
    script = f"import json, sys\n{code}\nprint(json.dumps([m for m in {MCP_MODULES!r} if m in sys.modules]))"
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_sdk_import_and_an_agent_with_mcp_config_do_not_load_mcp() -> None:
    code = (
        "import openhands.sdk\n"
        "from openhands.sdk.mcp import MCPServer\n"
        "from openhands.sdk.testing import TestLLM\n"
        "agent = openhands.sdk.Agent(llm=TestLLM(), "
        "mcp_config={'mcpServers': {'s': {'command': 'srv', 'env': {'K': 'v'}}}})\n"
        "agent.model_dump_json()"
    )

    assert _loaded_after(code) == []


def test_the_check_sees_mcp_once_tools_are_created() -> None:
    assert "mcp" in _loaded_after("import openhands.sdk.mcp.utils")
