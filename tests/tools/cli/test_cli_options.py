"""The command line of `openhands-goal`: what it accepts, refuses, and how it exits."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk.conversation.goal import GoalStatus, InvalidGoalError
from openhands.tools.cli.goal import main, parse_options
from openhands.tools.cli.options import (
    CONVERSATIONS_DIR,
    GoalCommandError,
    exit_code,
    more_rounds,
)


@pytest.fixture(autouse=True)
def no_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No LLM settings from the developer's shell, and the current folder is a temp one."""
    for name in ("LLM_MODEL", "LLM_API_KEY", "LLM_BASE_URL", "OH_SESSION_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def _final(status: str) -> GoalStatus:
    return GoalStatus(active=False, status=status, iteration=1, max_iterations=1, objective="x")  # type: ignore[arg-type]


def test_defaults_work_in_the_current_folder_and_persist_under_it(tmp_path: Path) -> None:
    options = parse_options(["make the tests pass"], tty=True)

    assert options.workspace == tmp_path.resolve()
    assert options.conversations_dir == tmp_path.resolve() / CONVERSATIONS_DIR
    assert options.output == "live"
    assert options.goal_request().max_iterations == 10


def test_without_a_terminal_the_output_is_plain_lines() -> None:
    assert parse_options(["x"], tty=False).output == "plain"
    assert parse_options(["x", "--json"], tty=True).output == "json"


def test_the_goal_flags_reach_the_goal_request() -> None:
    options = parse_options(
        ["fix it", "--verify", "pytest -q", "--max-iterations", "8", "--max-cost", "2"], tty=False
    )

    request = options.goal_request()
    assert (request.objective, request.verify, request.max_iterations, request.max_cost) == (
        "fix it",
        "pytest -q",
        8,
        2.0,
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "Say what the goal is"),
        (["--resume", "x"], "leave out OBJECTIVE"),
        (["--resume", "--verify", "true"], "leave out --verify"),
        (["x", "--api-key", "k"], "use it with --server"),
        (["x", "--server", "http://h", "--conversations-dir", "d"], "for local goals"),
        (["x", "--conversation-id", "nope"], "must be a conversation's UUID"),
        (["x", "--max-steps", "0"], "--max-steps must be >= 1"),
        (["x", "--workspace", "missing"], "is not a folder"),
    ],
)
def test_options_that_do_not_go_together_say_what_to_pass(argv: list[str], message: str) -> None:
    with pytest.raises(GoalCommandError, match=message):
        parse_options(argv, tty=False)


def test_resume_takes_new_limits_and_checks_them_before_anything_runs() -> None:
    options = parse_options(["--resume", "--max-iterations", "6", "--max-cost", "0"], tty=False)
    change = options.limits_change()
    assert change is not None and (change.max_iterations, change.max_cost) == (6, 0)
    assert parse_options(["--resume"], tty=False).limits_change() is None
    with pytest.raises(InvalidGoalError, match="max_iterations"):
        parse_options(["--resume", "--max-iterations", "0"], tty=False)


def test_a_bad_goal_limit_is_refused_before_anything_runs() -> None:
    with pytest.raises(InvalidGoalError, match="max_iterations"):
        parse_options(["x", "--max-iterations", "0"], tty=False)


def test_a_missing_model_names_the_variables_to_set() -> None:
    options = parse_options(["x"], tty=False)

    with pytest.raises(GoalCommandError, match="LLM_MODEL") as caught:
        options.agent_llm()
    assert "openhands-fake-llm" in str(caught.value)


def test_flags_override_the_model_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_MODEL", "openai/from-env")
    monkeypatch.setenv("LLM_BASE_URL", "http://env/v1")
    options = parse_options(["x", "--model", "openai/flag", "--judge-model", "openai/j"], tty=False)

    agent = options.agent_llm()
    judge = options.judge_llm(agent)

    assert (agent.model, agent.base_url, agent.usage_id) == (
        "openai/flag",
        "http://env/v1",
        "agent",
    )
    assert (judge.model, judge.usage_id) == ("openai/j", "goal-judge")


def test_the_resume_command_names_the_server_when_there_is_one() -> None:
    conversation = uuid.uuid4()
    options = parse_options(["x", "--server", "http://h:8000/"], tty=False)

    assert options.resume_command(conversation) == (
        f"openhands-goal --resume --conversation-id {conversation} --server http://h:8000"
    )


@pytest.mark.parametrize(
    ("status", "code"), [("complete", 0), ("capped", 1), ("interrupted", 2), ("running", 2)]
)
def test_exit_codes_follow_how_the_goal_ended(status: str, code: int) -> None:
    assert exit_code(_final(status)) == code


def test_main_exits_2_with_the_error_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["x", "--plain"]) == 2

    captured: Any = capsys.readouterr()
    assert captured.err.startswith("openhands-goal: error: No model: pass --model or set LLM_MODEL")
    assert captured.out == ""


@pytest.mark.parametrize(
    ("reason", "limits", "flag"),
    [
        ("reached max_iterations (4) without a complete verdict", {}, "--max-iterations 6"),
        ("cost budget reached: $1.0000 spent of max_cost $1.0000", {"max_cost": 1}, "--max-cost 2"),
        ("time limit reached: 60.0 s of time_limit 60 s", {"time_limit": 60}, "--time-limit 120"),
    ],
)
def test_the_capped_hint_lifts_the_limit_that_was_reached(
    reason: str, limits: dict[str, float], flag: str
) -> None:
    status = GoalStatus.model_validate(
        {
            "active": False,
            "status": "capped",
            "iteration": 4,
            "objective": "x",
            "reason": reason,
            "limits": {"max_iterations": 4, **limits},
        }
    )
    assert more_rounds(status) == flag
