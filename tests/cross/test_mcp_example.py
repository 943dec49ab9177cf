"""The MCP example (examples/01_standalone_sdk/07_mcp_integration.py) as a real process.

The fake OpenAI server plays the agent: it calls the example's own MCP server's tools, so
the example starts a real stdio MCP server, gets a text and an image back, and stops it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

EXAMPLE = Path(__file__).resolve().parents[2] / "examples/01_standalone_sdk/07_mcp_integration.py"


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake OpenAI-compatible server the example talks to."""
    with FakeOpenAIServer() as server:
        yield server


def _run(fake_llm: FakeOpenAIServer) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    env.update(
        LLM_MODEL="openai/agent",
        LLM_API_KEY="test-key",
        LLM_BASE_URL=fake_llm.base_url,
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    return subprocess.run(
        [sys.executable, str(EXAMPLE)], env=env, capture_output=True, text=True, timeout=120
    )


def test_the_example_calls_its_mcp_servers_tools_and_gets_text_and_an_image(
    fake_llm: FakeOpenAIServer,
) -> None:
    fake_llm.script(
        "agent",
        [
            FakeReply.tool_call("count_words", {"text": "the quick brown fox jumps"}),
            FakeReply.tool_call("color_swatch", {"hex_color": "#3366ff"}),
            FakeReply.text("5 words, and here is the swatch."),
        ],
    )

    done = _run(fake_llm)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "tools: " in done.stdout and "count_words" in done.stdout
    assert "[count_words] 5" in done.stdout
    assert "[color_swatch] <image," in done.stdout
    # The image reaches the model (litellm moves a tool's image into a user message).
    last_messages = fake_llm.requests_for("agent")[-1]["messages"]
    assert last_messages[-2]["role"] == "tool"
    assert "data:image/png;base64," in str(last_messages[-1]["content"])


def test_without_an_llm_the_example_says_what_to_set() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)], env=env, capture_output=True, text=True, timeout=60
    )

    assert done.returncode == 2
    assert "LLM_MODEL" in done.stderr
