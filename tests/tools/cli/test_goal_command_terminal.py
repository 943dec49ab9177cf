"""`openhands-goal` at a real terminal (a pseudo-terminal): what stays in the scrollback, how a
stop while a call waits for approval is resumed, and what the preflight names before anything
starts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.testing import DemoScript, FakeOpenAIServer
from openhands.sdk.testing.demo_script import DEMO_FILE, DEMO_TEST
from openhands.tools.cli.options import CONVERSATIONS_DIR
from pty_process import PtyProcess

pytestmark = pytest.mark.slow

QUESTION = "Your answer ["


@pytest.fixture
def demo() -> Iterator[FakeOpenAIServer]:
    """The demo script, answering at once (a server of this test's own)."""
    with FakeOpenAIServer() as server:
        server.set_responder("*", DemoScript())
        yield server


def _no_conversation(workspace: Path) -> bool:
    store = workspace / CONVERSATIONS_DIR
    return not store.exists() or not any(p.is_dir() for p in store.iterdir())


def test_each_action_and_its_result_stay_in_the_scrollback(
    demo: FakeOpenAIServer, workspace_dir: Path
) -> None:
    goal = PtyProcess(demo, workspace_dir, "greet the world")

    code, screen = goal.finish()

    assert code == 0, screen
    lines = [line.strip() for line in goal.lines() if line.strip()]
    created = lines.index(f"● file_editor: create {DEMO_FILE}")
    assert lines[created + 1].startswith("⎿ File created successfully")
    ran = lines.index(f"● terminal: python3 {DEMO_FILE}")
    assert lines[ran + 1] == "⎿ exit 0 · 1 line · Hello, world!"
    tested = lines.index(f"● terminal: python3 {DEMO_TEST}")
    assert lines[tested + 1].startswith("⎿ exit 0")
    assert created < ran < tested
    # The live status line was drawn meanwhile, and erased: it is not left in the scrollback.
    assert "round 1 of 10  agent:" in screen
    assert not any("agent: thinking..." in line for line in lines)
    assert lines[-1].startswith("goal complete after 2 rounds")


@pytest.mark.parametrize("confirm", [[], ["--confirm"]], ids=["resume", "resume-confirm"])
def test_a_resumed_goal_asks_again_about_the_call_a_stop_left_waiting(
    demo: FakeOpenAIServer, workspace_dir: Path, confirm: list[str]
) -> None:
    first = PtyProcess(demo, workspace_dir, "greet the world", "--confirm")
    first.expect(f"file_editor: create {DEMO_FILE}")
    first.expect(QUESTION)
    first.ctrl_c()  # stop while the call waits: nothing answered it
    code, screen = first.finish()
    assert code == 2 and "goal interrupted" in screen
    assert not (workspace_dir / DEMO_FILE).exists()

    resumed = PtyProcess(demo, workspace_dir, "--resume", *confirm)
    if not confirm:
        resumed.expect("approval: this conversation asks before tool calls")
    asked = resumed.expect(QUESTION)
    assert f"file_editor: create {DEMO_FILE}" in asked  # the very call that waited
    resumed.type("y\n")
    asked = resumed.expect(QUESTION)
    assert f"terminal: python3 {DEMO_FILE}" in asked
    # Each choice says what it allows, and `a` and `t` differ for a command.
    assert "a  run it, and from now on run terminal commands starting with `python3`" in asked
    assert "t  run it, and trust the tool: from now on run every terminal call" in asked
    resumed.type("t\n")
    asked = resumed.expect(QUESTION)
    assert f"file_editor: create {DEMO_TEST}" in asked
    assert "  t  " not in asked  # for a file edit it would allow what `a` allows: one choice
    resumed.type("a\n")

    code, screen = resumed.finish()

    assert code == 0, screen
    assert (workspace_dir / DEMO_FILE).exists() and (workspace_dir / DEMO_TEST).exists()


def test_a_model_without_a_provider_is_named_before_anything_starts(
    demo: FakeOpenAIServer, workspace_dir: Path
) -> None:
    # (At an OpenAI-compatible base URL a bare name is sent as it is: no prefix needed there.)
    env = {"LLM_MODEL": "qwen2.5-coder", "LLM_BASE_URL": ""}
    goal = PtyProcess(demo, workspace_dir, "greet", env=env)

    code, screen = goal.finish()

    assert code == 2
    assert "'openai/qwen2.5-coder'" in screen and "LLM_MODEL / --model" in screen
    assert "Traceback" not in screen and "litellm" not in screen.lower()
    assert _no_conversation(workspace_dir)


def test_an_openai_endpoint_without_a_key_is_named_before_anything_starts(
    demo: FakeOpenAIServer, workspace_dir: Path
) -> None:
    goal = PtyProcess(demo, workspace_dir, "greet", env={"LLM_API_KEY": "", "OPENAI_API_KEY": ""})

    code, screen = goal.finish()

    assert code == 2
    assert "No API key" in screen and demo.base_url in screen
    assert "--llm-api-key or LLM_API_KEY" in screen
    assert "Traceback" not in screen and "litellm" not in screen.lower()
    assert demo.requests == [] and _no_conversation(workspace_dir)
