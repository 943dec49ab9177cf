"""The goal example (examples/01_standalone_sdk/54_goal_completion_loop.py) as a real process.

The fake OpenAI server plays the agent (it really writes files with file_editor and runs
pytest in the terminal) and a gullible judge that always says "complete": only the verify
command (`python -m pytest -q`) keeps the goal going until the tests exist and pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

EXAMPLE = (
    Path(__file__).resolve().parents[2] / "examples/01_standalone_sdk/54_goal_completion_loop.py"
)

MATHX = """\
def add(a, b):
    return a + b


def clamp(x, low, high):
    if low > high:
        raise ValueError("low must be <= high")
    return max(low, min(x, high))
"""

TEST_MATHX = """\
import pytest

from mathx import add, clamp


def test_add():
    assert add(2, 3) == 5


def test_clamp():
    assert clamp(5, 0, 3) == 3
    assert clamp(-1, 0, 3) == 0


def test_clamp_rejects_inverted_bounds():
    with pytest.raises(ValueError):
        clamp(1, 3, 0)
"""

GULLIBLE_VERDICT = json.dumps(
    {
        "score": 1.0,
        "complete": True,
        "missing": [],
        "requirements": [
            {"text": "mathx.py exists", "satisfied": True, "evidence": "the agent says so"}
        ],
    }
)


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake OpenAI-compatible server the example talks to."""
    with FakeOpenAIServer() as server:
        yield server


def example_env(**values: str) -> dict[str, str]:
    """The test's environment without LLM settings, the venv first on PATH, plus `values`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    env.pop("GOAL_EXAMPLE_WORKDIR", None)
    env.update(values)
    return env


def run_example(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def user_texts(request: dict[str, Any]) -> list[str]:
    return [
        str(message.get("content"))
        for message in request["messages"]
        if message.get("role") == "user"
    ]


def test_the_example_builds_mathx_and_completes_only_when_pytest_passes(
    fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    workdir = tmp_path / "project"
    fake_llm.script(
        "agent",
        [
            # Round 1: writes the module only and claims success.
            FakeReply.tool_call(
                "file_editor", {"command": "create", "path": "mathx.py", "file_text": MATHX}
            ),
            FakeReply.tool_call("finish", {"message": "mathx.py is done."}),
            # Round 2: writes the tests, runs them, finishes.
            FakeReply.tool_call(
                "file_editor",
                {"command": "create", "path": "test_mathx.py", "file_text": TEST_MATHX},
            ),
            FakeReply.tool_call("terminal", {"command": "python -m pytest -q"}),
            FakeReply.tool_call("finish", {"message": "Tests pass."}),
        ],
    )
    fake_llm.set_responder("judge", lambda body: FakeReply.text(GULLIBLE_VERDICT))
    env = example_env(
        LLM_MODEL="openai/agent",
        LLM_JUDGE_MODEL="openai/judge",
        LLM_API_KEY="test-key",
        LLM_BASE_URL=fake_llm.base_url,
    )

    done = run_example(env, str(workdir))

    assert done.returncode == 0, done.stdout + done.stderr
    assert "goal complete after 2 round(s)" in done.stdout
    # The live progress from `on_status`: phases, then one timeline line per judged round.
    assert "[goal] round 1/5: verifying..." in done.stdout
    assert "[goal] round 1/5: judging..." in done.stdout
    assert "[goal] round 1: score 1.00, verify exit 5" in done.stdout
    assert (workdir / "mathx.py").read_text() == MATHX
    assert (workdir / "test_mathx.py").read_text() == TEST_MATHX
    assert fake_llm.remaining("agent") == 0
    assert len(fake_llm.requests_for("judge")) == 2
    # The judge said "complete" after round 1, but pytest found no tests: the agent was
    # sent back with the failing verify output.
    round_two = fake_llm.requests_for("agent")[2]
    assert any("`python -m pytest -q` exited with code 5" in t for t in user_texts(round_two))
    # The terminal really ran pytest in round 2.
    tool_outputs = [
        str(m.get("content"))
        for m in fake_llm.requests_for("agent")[-1]["messages"]
        if m.get("role") == "tool"
    ]
    assert any("3 passed" in output for output in tool_outputs)


def test_the_example_without_an_llm_exits_2_saying_what_to_set(tmp_path: Path) -> None:
    done = run_example(example_env(), str(tmp_path / "unused"))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "LLM_MODEL" in lines[0]
    assert not (tmp_path / "unused").exists()
