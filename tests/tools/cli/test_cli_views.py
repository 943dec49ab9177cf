"""The three views of `openhands-goal`: JSON lines, plain lines and the live `rich` block."""

from __future__ import annotations

import io
import json
from typing import Any

from openhands.sdk.conversation.goal import GoalRound, GoalStatus, GoalVerdict
from openhands.tools.cli.describe import THINKING
from openhands.tools.cli.views import JsonView, LiveView, PlainView
from rich.console import Console


def _status(**fields: Any) -> GoalStatus:
    base: dict[str, Any] = {
        "active": True,
        "status": "running",
        "iteration": 0,
        "max_iterations": 3,
        "objective": "greet",
        "phase": "agent",
    }
    return GoalStatus.model_validate({**base, **fields})


JUDGED = _status(
    iteration=1,
    verdict=GoalVerdict(score=0.5, complete=False, missing="no test"),
    last_round=GoalRound(iteration=1, score=0.5, complete=False, missing="no test"),
    cost=0.01,
)
DONE = _status(
    active=False,
    status="complete",
    phase=None,
    iteration=2,
    verdict=GoalVerdict(score=1, complete=True),
    last_round=GoalRound(iteration=2, score=1, complete=True),
    cost=0.02,
)


def test_json_lines_are_full_statuses_with_the_conversation_id() -> None:
    out = io.StringIO()
    view = JsonView(out=out, err=io.StringIO())
    view.begin("c-1", "header")

    view.status(_status())
    view.status(JUDGED)

    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["conversation_id"] for line in lines] == ["c-1", "c-1"]
    assert GoalStatus.model_validate(lines[1]) == JUDGED


def test_json_view_prints_a_repeated_status_once() -> None:
    out = io.StringIO()
    view = JsonView(out=out, err=io.StringIO())

    view.status(DONE)
    view.close(DONE, None)

    assert len(out.getvalue().splitlines()) == 1


def test_json_view_keeps_remarks_and_actions_off_stdout() -> None:
    out, err = io.StringIO(), io.StringIO()
    view = JsonView(out=out, err=err)

    view.activity("terminal: ls")
    view.step("terminal: ls")
    view.result("exit 0")
    view.notice("Stopping")
    view.close(None, "resume it with: ...")

    assert out.getvalue() == ""
    assert err.getvalue() == "openhands-goal: Stopping\nopenhands-goal: resume it with: ...\n"


def test_plain_view_prints_phases_actions_results_and_each_verdict_once() -> None:
    out = io.StringIO()
    view = PlainView(out=out)

    view.status(_status())
    view.step("terminal: ls")
    view.activity("terminal: ls")
    view.result("exit 0 · 2 lines · b.py")
    view.activity(THINKING)
    view.step("terminal: ls")  # the same command again is a line again
    view.result("exit 0 · 2 lines · b.py")
    view.status(_status(phase="judging"))
    view.status(JUDGED)
    view.status(JUDGED)

    assert out.getvalue().splitlines() == [
        "round 1 of 3 | the agent works",
        "round 1 of 3 | agent | terminal: ls",
        "round 1 of 3 | result | exit 0 · 2 lines · b.py",
        "round 1 of 3 | agent | terminal: ls",
        "round 1 of 3 | result | exit 0 · 2 lines · b.py",
        "round 1 of 3 | judging...",
        "round 1: not complete | score 0.50 | missing: no test | cost so far $0.0100",
        "round 2 of 3 | the agent works",
    ]


def test_plain_view_ends_with_the_end_line_and_the_hint() -> None:
    out = io.StringIO()
    view = PlainView(out=out)

    view.close(DONE, "a hint")

    assert out.getvalue().splitlines() == [
        "round 2: complete | score 1.00 | cost so far $0.0200",
        "goal complete after 2 rounds, score 1.00, cost $0.0200",
        "a hint",
    ]


def test_live_view_draws_the_round_and_action_and_keeps_verdicts_above() -> None:
    screen = io.StringIO()
    view = LiveView(Console(file=screen, force_terminal=True, width=120, color_system=None))
    view.begin("c-1", "goal: greet")
    view.status(_status())
    view.activity("terminal: pytest -q")
    block = Console(file=io.StringIO(), width=120, color_system=None)
    with block.capture() as drawn:
        block.print(view)

    view.status(JUDGED)
    view.close(DONE, None)

    assert "round 1 of 3  agent: terminal: pytest -q  $0.0000" in drawn.get()
    text = screen.getvalue()
    assert "round 1: not complete | score 0.50" in text
    assert "goal complete after 2 rounds" in text


def test_live_view_prints_each_action_and_result_above_the_block() -> None:
    screen = io.StringIO()
    view = LiveView(Console(file=screen, force_terminal=True, width=120, color_system=None))
    view.begin("c-1", "goal: greet")
    view.status(_status())
    view.step("terminal: true")
    view.result("exit 0 · 0 lines")
    view.close(DONE, None)

    text = screen.getvalue()
    assert "● terminal: true\n" in text
    assert "  ⎿ exit 0 · 0 lines\n" in text
    assert text.index("● terminal: true") < text.index("⎿ exit 0") < text.index("goal complete")
