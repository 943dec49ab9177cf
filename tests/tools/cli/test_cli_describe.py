"""The few words `openhands-goal` shows for an action, a verdict and the end of a goal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openhands.sdk import Message, MessageToolCall, TextContent
from openhands.sdk.conversation.goal import (
    GoalRequirement,
    GoalRound,
    GoalStatus,
    GoalVerdict,
)
from openhands.sdk.event import ActionEvent, MessageEvent, ObservationEvent
from openhands.sdk.tool import Action
from openhands.tools.cli.describe import (
    ACTION_CHARS,
    THINKING,
    describe_event,
    end_line,
    phase_line,
    requirements_line,
    round_label,
    verdict_line,
)
from openhands.tools.file_editor import FileEditorAction
from openhands.tools.terminal import TerminalAction, TerminalObservation


def _action(tool: str, action: Action) -> ActionEvent:
    arguments = action.model_dump_json(exclude_none=True)
    call = MessageToolCall(id="c1", name=tool, arguments=arguments)
    return ActionEvent(tool_name=tool, tool_call_id="c1", tool_call=call, action=action)


def _status(**fields: Any) -> GoalStatus:
    base: dict[str, Any] = {
        "active": True,
        "status": "running",
        "iteration": 0,
        "max_iterations": 5,
        "objective": "greet",
    }
    return GoalStatus.model_validate({**base, **fields})


VERDICT = GoalVerdict(
    score=0.5,
    complete=False,
    missing="no test",
    requirements=[
        GoalRequirement(text="file exists", satisfied=True),
        GoalRequirement(text="test passes", satisfied=False),
    ],
)


def test_a_terminal_call_is_its_command() -> None:
    assert (
        describe_event(_action("terminal", TerminalAction(command="pytest -q")))
        == "terminal: pytest -q"
    )


def test_a_file_editor_call_names_the_command_and_the_path_inside_the_workspace() -> None:
    event = _action(
        "file_editor",
        FileEditorAction(command="create", path="/work/app/src/x.py", file_text="..."),
    )

    assert describe_event(event, Path("/work/app")) == "file_editor: create src/x.py"


def test_an_action_that_failed_validation_is_read_from_the_tool_call() -> None:
    call = MessageToolCall(id="c1", name="terminal", arguments='{"command": "ls -la"}')
    event = ActionEvent(tool_name="terminal", tool_call_id="c1", tool_call=call, action=None)

    assert describe_event(event) == "terminal: ls -la"


def test_a_long_command_is_cut_to_one_short_line() -> None:
    text = describe_event(_action("terminal", TerminalAction(command="echo " + "x" * 200 + "\nls")))

    assert text is not None and len(text) == ACTION_CHARS and text.endswith("...")
    assert "\n" not in text


def test_a_tool_result_means_the_agent_thinks_again() -> None:
    event = ObservationEvent(
        tool_name="terminal",
        tool_call_id="c1",
        action_id="a1",
        observation=TerminalObservation.from_text("ok"),
    )

    assert describe_event(event) == THINKING


def test_an_agent_message_is_what_it_says_and_a_user_message_is_nothing() -> None:
    said = Message(role="assistant", content=[TextContent(text="All done.\nBye")])
    asked = Message(role="user", content=[TextContent(text="do it")])

    assert describe_event(MessageEvent(source="agent", llm_message=said)) == "says: All done. Bye"
    assert describe_event(MessageEvent(source="user", llm_message=asked)) is None


def test_requirements_are_counted_as_proven_of_all() -> None:
    assert requirements_line(VERDICT) == "1 of 2 requirements proven"
    assert requirements_line(GoalVerdict(score=1, complete=True)) is None


def test_the_round_label_counts_the_round_at_work_then_the_last_one() -> None:
    assert round_label(_status(iteration=1)) == "round 2 of 5"
    assert round_label(_status(active=False, status="complete", iteration=2)) == "round 2 of 5"


def test_phases_read_as_what_happens_now() -> None:
    assert phase_line(_status(phase="judging")) == "judging..."
    assert phase_line(_status(phase="verifying", verify_command="pytest")) == "verifying: pytest..."
    assert phase_line(_status(active=False, status="capped")) is None


def test_a_verdict_line_has_round_score_requirements_verify_missing_and_cost() -> None:
    row = GoalRound(iteration=1, score=0.5, complete=False, missing="no test", verify_exit_code=1)
    status = _status(iteration=1, verdict=VERDICT, last_round=row, cost=0.0123)

    assert verdict_line(status) == (
        "round 1: not complete | score 0.50 | 1 of 2 requirements proven | verify exit 1 | "
        "missing: no test | cost so far $0.0123"
    )


def test_the_end_line_says_how_why_after_how_many_rounds_and_the_cost() -> None:
    status = _status(
        active=False,
        status="capped",
        iteration=3,
        verdict=VERDICT,
        reason="reached max_iterations (3)",
        cost=0.5,
    )

    assert end_line(status) == (
        "goal capped (reached max_iterations (3)) after 3 rounds, score 0.50, cost $0.5000"
    )
