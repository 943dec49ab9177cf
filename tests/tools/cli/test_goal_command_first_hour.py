"""`openhands-goal` as a new user meets it: a model that cannot work is named before anything
starts, `--confirm` asks before each tool call, and the small words are right."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from goal_process import GoalProcess, run_goal_command
from openhands.sdk.conversation import LocalConversation
from openhands.sdk.event import UserRejectObservation
from openhands.sdk.testing import DemoScript, FakeOpenAIServer, FakeReply
from openhands.sdk.testing.demo_script import DEMO_FILE, DEMO_TEST
from openhands.tools.cli.goal import parse_options
from openhands.tools.cli.options import CONVERSATIONS_DIR, GoalCommandError

WAITS = "approval: the agent's call waits for your answer:"


@pytest.fixture
def demo() -> Iterator[FakeOpenAIServer]:
    """The demo script, answering at once (a server of this test's own)."""
    with FakeOpenAIServer() as server:
        server.set_responder("*", DemoScript())
        yield server


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _no_conversation(workspace: Path) -> bool:
    store = workspace / CONVERSATIONS_DIR
    return not store.exists() or not any(p.is_dir() for p in store.iterdir())


@pytest.mark.slow
def test_a_refused_connection_is_named_before_anything_starts(
    demo: FakeOpenAIServer, workspace_dir: Path
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"

    code, lines, err = run_goal_command(demo, workspace_dir, "greet", env={"LLM_BASE_URL": url})

    assert (code, lines) == (2, [])
    assert url in err and "connection refused" in err
    assert "..." not in err  # the whole message, never cut
    assert _no_conversation(workspace_dir)


@pytest.mark.slow
def test_a_refused_key_is_named_before_anything_starts(
    demo: FakeOpenAIServer, workspace_dir: Path
) -> None:
    demo.require_api_key("the-right-key")

    code, lines, err = run_goal_command(demo, workspace_dir, "greet")

    assert (code, lines) == (2, [])
    assert demo.base_url in err and "HTTP 401" in err and "refused the API key" in err
    assert "--llm-api-key or LLM_API_KEY" in err
    assert demo.requests == []  # no round was tried
    assert _no_conversation(workspace_dir)


@pytest.mark.slow
def test_an_unknown_model_is_named_with_what_the_server_serves(
    workspace_dir: Path,
) -> None:
    with FakeOpenAIServer() as fake:
        fake.script("real-model", [FakeReply.text("hi")])
        url = fake.base_url

        code, _, err = run_goal_command(fake, workspace_dir, "greet", model="openai/reel-model")

    assert code == 2
    assert "'openai/reel-model'" in err and "real-model" in err and url in err
    assert _no_conversation(workspace_dir)


@pytest.mark.slow
def test_confirm_asks_before_each_call_and_remembers_always(
    demo: FakeOpenAIServer, workspace_dir: Path
) -> None:
    process = GoalProcess(demo, workspace_dir, "greet the world", "--confirm", "--plain")
    process.wait_for_line(f"  file_editor: create {DEMO_FILE}")
    preview = process.wait_for_line("+def greet")
    assert not (workspace_dir / DEMO_FILE).exists()  # nothing runs before the answer
    process.answer("y")
    process.wait_for_line(f"  terminal: python3 {DEMO_FILE}")
    process.answer("a")  # always allow `python3` commands
    process.wait_for_line("from now on terminal commands starting with `python3`")
    process.wait_for_line(f"  file_editor: create {DEMO_TEST}")
    process.answer("t")  # always allow file_editor

    code, lines, _ = process.finish()

    assert code == 0, lines
    assert preview.strip().startswith("+def greet")
    # Three questions: the two creates and the first python3; `python3 test_...` and
    # `finish` ran without asking.
    assert lines.count(WAITS) == 3
    assert (workspace_dir / DEMO_TEST).exists()


@pytest.mark.slow
def test_confirm_rejects_with_a_reason_and_stops_at_the_end_of_input(
    demo: FakeOpenAIServer, workspace_dir: Path
) -> None:
    process = GoalProcess(demo, workspace_dir, "greet the world", "--confirm", "--plain")
    process.wait_for_line(WAITS)
    process.answer("n")
    process.answer("write it somewhere else")
    process.wait_for_line("approval: rejected")
    process.wait_for_line(WAITS)  # the agent goes on: its next call asks again
    process.end_input()

    code, lines, _ = process.finish()

    assert code == 2
    assert any(line.startswith("goal interrupted") for line in lines)
    conversation_id = next(line for line in lines if line.startswith("conversation ")).split()[1]
    stored = LocalConversation(
        None,
        workspace_dir,
        persistence_dir=workspace_dir / CONVERSATIONS_DIR,
        conversation_id=uuid.UUID(conversation_id),
    )
    try:
        reasons = [
            event.rejection_reason
            for event in stored.state.events
            if isinstance(event, UserRejectObservation)
        ]
    finally:
        stored.close()
    assert reasons == ["write it somewhere else"]


def test_one_round_is_singular_in_the_header(workspace_dir: Path) -> None:
    options = parse_options(["greet", "--max-iterations", "1", "--workspace", str(workspace_dir)])

    assert "up to 1 round |" in options.header(uuid.uuid4()) + " |"


def test_the_resume_hint_says_uv_run_only_when_uv_run_started_it(
    workspace_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = parse_options(["greet", "--workspace", str(workspace_dir)])
    conversation = uuid.uuid4()
    monkeypatch.delenv("UV_RUN_RECURSION_DEPTH", raising=False)
    assert options.resume_command(conversation).startswith("openhands-goal --resume")

    monkeypatch.setenv("UV_RUN_RECURSION_DEPTH", "1")
    assert options.resume_command(conversation).startswith("uv run openhands-goal --resume")


def test_a_server_address_without_a_scheme_says_which_url_to_give(workspace_dir: Path) -> None:
    with pytest.raises(GoalCommandError, match="http://localhost:8000") as caught:
        parse_options(["greet", "--server", "localhost:8000"])

    assert "RemoteWorkspace" not in str(caught.value)
