"""`openhands-goal` as a real process, in this machine's folders, against the fake LLM's demo
script (the agent writes hello_goal.py, then its test; the judge completes round 2)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from goal_process import GoalProcess, json_lines, run_goal_command
from openhands.sdk.conversation.goal import GoalStatus
from openhands.sdk.conversation.persistence import load_conversation_summary
from openhands.sdk.testing import DemoScript, FakeOpenAIServer
from openhands.sdk.testing.demo_script import DEMO_FILE, DEMO_TEST
from openhands.tools.cli import goal
from openhands.tools.cli.options import CONVERSATIONS_DIR

SLOW_REPLY = 0.5
"""Seconds each reply of the slow fake takes: time to press Ctrl-C in the middle of a round."""


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAIServer]:
    """The demo script, answering at once."""
    with FakeOpenAIServer() as server:
        server.set_responder("*", DemoScript())
        yield server


@pytest.fixture(scope="module")
def slow_fake() -> Iterator[FakeOpenAIServer]:
    """The demo script, answering after SLOW_REPLY seconds."""
    with FakeOpenAIServer() as server:
        server.set_responder("*", DemoScript(delay=SLOW_REPLY))
        yield server


def _stored_goal(workspace: Path, conversation_id: str) -> dict[str, object]:
    summary = load_conversation_summary(workspace / CONVERSATIONS_DIR, uuid.UUID(conversation_id))
    assert summary is not None and summary.goal is not None
    return summary.goal


def _conversation_id(lines: list[str]) -> str:
    header = next(line for line in lines if line.startswith("conversation "))
    return header.split()[1]


def interrupt_mid_round(fake: FakeOpenAIServer, workspace: Path) -> tuple[int, list[str], str]:
    """Start a goal, press Ctrl-C once the agent's first tool call ran; the finished run."""
    process = GoalProcess(fake, workspace, "greet the world", "--max-iterations", "3", "--plain")
    process.wait_for_line(f"agent | file_editor: create {DEMO_FILE}")
    process.interrupt()
    return process.finish()


def test_the_console_script_runs_main() -> None:
    (script,) = entry_points(group="console_scripts", name="openhands-goal")

    assert script.load() is goal.main


@pytest.mark.slow
def test_plain_lines_show_rounds_actions_verdicts_and_cost(
    fake: FakeOpenAIServer, workspace_dir: Path
) -> None:
    code, lines, _ = run_goal_command(
        fake, workspace_dir, "greet the world", "--verify", f"python3 {DEMO_TEST}"
    )

    assert code == 0
    assert f"round 1 of 10 | agent | file_editor: create {DEMO_FILE}" in lines
    assert f"round 1 of 10 | agent | terminal: python3 {DEMO_FILE}" in lines
    assert f"round 1 of 10 | verifying: python3 {DEMO_TEST}..." in lines
    assert "round 1 of 10 | judging..." in lines
    first = next(line for line in lines if line.startswith("round 1: "))
    assert first.startswith("round 1: not complete | score 0.50 | 2 of 4 requirements proven")
    assert "verify exit 2 | missing: a test of greet() exists and passes" in first
    second = next(line for line in lines if line.startswith("round 2: "))
    assert second.startswith("round 2: complete | score 1.00 | 4 of 4 requirements proven")
    assert lines[-1].startswith("goal complete after 2 rounds, score 1.00, cost $0.0")
    assert (workspace_dir / DEMO_TEST).is_file()


@pytest.mark.slow
def test_json_mode_prints_one_status_per_line_with_growing_cost(
    fake: FakeOpenAIServer, workspace_dir: Path
) -> None:
    code, lines, _ = run_goal_command(fake, workspace_dir, "greet the world", "--json")

    statuses = [GoalStatus.model_validate(line) for line in json_lines(lines)]
    assert code == 0
    assert [(s.iteration, s.phase) for s in statuses if s.active] == [
        (0, "agent"),
        (0, "judging"),
        (1, "agent"),
        (1, "judging"),
    ]
    rounds = {s.last_round.iteration: s for s in statuses if s.last_round is not None}
    assert {number: s.last_round.score for number, s in rounds.items() if s.last_round} == {
        1: 0.67,
        2: 1.0,
    }
    assert 0 < rounds[1].cost < rounds[2].cost
    assert statuses[-1].status == "complete"
    assert len({line["conversation_id"] for line in json_lines(lines)}) == 1


@pytest.mark.slow
def test_a_goal_that_reaches_its_round_cap_exits_1(
    fake: FakeOpenAIServer, workspace_dir: Path
) -> None:
    code, lines, _ = run_goal_command(
        fake, workspace_dir, "greet the world", "--max-iterations", "1", "--json"
    )

    last = json_lines(lines)[-1]
    assert code == 1
    assert (last["status"], last["iteration"]) == ("capped", 1)
    assert "max_iterations" in last["reason"]


@pytest.mark.slow
def test_a_capped_goal_continues_with_new_limits(
    fake: FakeOpenAIServer, workspace_dir: Path
) -> None:
    code, capped, _ = run_goal_command(
        fake, workspace_dir, "greet the world", "--max-iterations", "1", "--plain"
    )
    conversation = _conversation_id(capped)
    assert code == 1
    assert capped[-1] == (
        f"continue it with new limits: openhands-goal --resume --conversation-id {conversation} "
        "--max-iterations 2"
    )

    code, lines, err = run_goal_command(fake, workspace_dir, "--resume", "--plain")
    assert (code, lines) == (2, [])
    assert "its goal was capped (reached max_iterations (1)" in err
    assert "add --max-iterations N (more than the 1 rounds done)" in err
    code, lines, err = run_goal_command(
        fake, workspace_dir, "--resume", "--max-iterations", "1", "--plain"
    )
    assert (code, lines) == (2, [])
    assert "--max-iterations: max_iterations must be more than the 1 rounds already done" in err

    code, lines, _ = run_goal_command(
        fake, workspace_dir, "--resume", "--max-iterations", "3", "--plain"
    )
    assert code == 0
    assert lines[0] == "continuing capped goal (after 1 round, with new limits): greet the world"
    assert "up to 3 rounds" in lines[1]
    assert _conversation_id(lines) == conversation
    assert lines[-1].startswith("goal complete after ")
    assert _stored_goal(workspace_dir, conversation)["status"] == "complete"


@pytest.mark.slow
def test_ctrl_c_mid_round_exits_2_and_persists_the_interrupted_goal(
    slow_fake: FakeOpenAIServer, workspace_dir: Path
) -> None:
    code, lines, _ = interrupt_mid_round(slow_fake, workspace_dir)

    assert code == 2
    assert any(
        line.startswith("Stopping: the agent stops after its current step") for line in lines
    )
    assert any(line.startswith("goal interrupted (conversation paused)") for line in lines)
    conversation = _conversation_id(lines)
    assert lines[-1] == f"resume it with: openhands-goal --resume --conversation-id {conversation}"
    assert _stored_goal(workspace_dir, conversation)["status"] == "interrupted"


@pytest.mark.slow
def test_resume_completes_the_interrupted_goal_in_the_same_conversation(
    slow_fake: FakeOpenAIServer, fake: FakeOpenAIServer, workspace_dir: Path
) -> None:
    _, stopped, _ = interrupt_mid_round(slow_fake, workspace_dir)

    code, lines, _ = run_goal_command(fake, workspace_dir, "--resume", "--plain")

    assert code == 0
    assert lines[0] == "resuming goal (after 0 of 3 rounds): greet the world"
    assert _conversation_id(lines) == _conversation_id(stopped)
    assert lines[-1].startswith("goal complete after 2 rounds")
    assert _stored_goal(workspace_dir, _conversation_id(lines))["status"] == "complete"


@pytest.mark.slow
def test_a_second_ctrl_c_quits_at_once_leaving_the_goal_resumable(
    workspace_dir: Path,
) -> None:
    with FakeOpenAIServer() as hanging:
        hanging.set_responder("*", DemoScript(delay=60))
        process = GoalProcess(hanging, workspace_dir, "greet", "--plain")
        process.wait_for_line("round 1 of 10 | the agent works")
        process.interrupt()
        process.wait_for_line("Stopping:")
        process.interrupt()
        code, lines, err = process.finish(timeout=30)

    assert code == 2
    assert "quitting now; the goal stays resumable (--resume)" in err
    assert _stored_goal(workspace_dir, _conversation_id(lines))["status"] == "running"


@pytest.mark.slow
def test_resume_with_nothing_interrupted_exits_2_saying_so(
    fake: FakeOpenAIServer, workspace_dir: Path
) -> None:
    code, lines, err = run_goal_command(fake, workspace_dir, "--resume")

    assert (code, lines) == (2, [])
    assert "No interrupted or capped goal in" in err


@pytest.mark.slow
def test_a_missing_model_exits_2_naming_what_to_set(
    fake: FakeOpenAIServer, workspace_dir: Path
) -> None:
    code, lines, err = run_goal_command(fake, workspace_dir, "greet", model="")

    assert (code, lines) == (2, [])
    assert "No model: pass --model or set LLM_MODEL" in err
