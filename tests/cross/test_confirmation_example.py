"""The confirmation example (examples/01_standalone_sdk/04_confirmation_mode.py) as a real
process: a harmless command runs at once, `rm -rf ./*` waits, and the answer decides."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

EXAMPLE = Path(__file__).resolve().parents[2] / "examples/01_standalone_sdk/04_confirmation_mode.py"


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake OpenAI-compatible server the example talks to."""
    with FakeOpenAIServer() as server:
        yield server


def _run(fake_llm: FakeOpenAIServer, answer: str) -> subprocess.CompletedProcess[str]:
    fake_llm.script(
        "agent",
        [
            FakeReply.tool_call("terminal", {"command": "ls -la"}),
            FakeReply.tool_call("terminal", {"command": "rm -rf ./*"}),
            FakeReply.text("All done."),
        ],
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    env.update(
        LLM_MODEL="openai/agent",
        LLM_API_KEY="test-key",
        LLM_BASE_URL=fake_llm.base_url,
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    return subprocess.run(
        [sys.executable, str(EXAMPLE), answer],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_only_the_risky_command_waits_and_a_rejection_keeps_it_from_running(
    fake_llm: FakeOpenAIServer,
) -> None:
    done = _run(fake_llm, "--reject")

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("waiting:") == 1
    assert "risk HIGH" in done.stdout and "rm -rf" in done.stdout and "rejected" in done.stdout
    last = fake_llm.requests_for("agent")[-1]["messages"]
    assert "does not want files deleted" in str(last[-1])


def test_an_approval_runs_the_risky_command(fake_llm: FakeOpenAIServer) -> None:
    done = _run(fake_llm, "--approve")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "approved" in done.stdout and "status: finished" in done.stdout
    assert len(fake_llm.requests_for("agent")) == 3
