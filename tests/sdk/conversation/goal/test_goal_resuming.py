"""Which recorded goal may go on, and with which limits (`goal.resuming`), and `resume_goal`
continuing a capped goal with new limits."""

from __future__ import annotations

import pytest
from goal_helpers import GoalConversation, finish, judge_json, user_texts
from openhands.sdk.conversation.goal import (
    GoalLimits,
    GoalLimitsChange,
    GoalStatus,
    InvalidGoalError,
    NoResumableGoalError,
    resume_goal,
    resume_limits,
    run_goal,
)
from openhands.sdk.testing import TestLLM

HINT = "start a new one"


def _status(status: str, **fields: object) -> GoalStatus:
    values: dict[str, object] = {
        "active": False,
        "status": status,
        "iteration": 2,
        "objective": "x",
        "limits": GoalLimits(max_iterations=2, max_cost=1.0, time_limit=60),
        "cost": 0.5,
        "elapsed": 30.0,
        "reason": "reached max_iterations (2) without a complete verdict",
    }
    values.update(fields)
    return GoalStatus.model_validate(values)


def test_an_interrupted_goal_resumes_with_its_own_limits_or_new_ones() -> None:
    status = _status("interrupted", iteration=1)
    assert resume_limits(status, None, start_hint=HINT) == status.limits
    wider = resume_limits(status, GoalLimitsChange(max_iterations=5), start_hint=HINT)
    assert (wider.max_iterations, wider.max_cost, wider.time_limit) == (5, 1.0, 60)


def test_no_goal_and_a_complete_goal_cannot_go_on() -> None:
    with pytest.raises(NoResumableGoalError, match="no goal to resume; start a new one"):
        resume_limits(None, None, start_hint=HINT)
    with pytest.raises(NoResumableGoalError, match="is complete"):
        resume_limits(_status("complete"), GoalLimitsChange(max_iterations=9), start_hint=HINT)


def test_a_capped_goal_needs_new_limits() -> None:
    with pytest.raises(NoResumableGoalError, match=r"capped \(reached max_iterations.*new limits"):
        resume_limits(_status("capped"), None, start_hint=HINT)
    with pytest.raises(NoResumableGoalError, match="new limits"):
        resume_limits(_status("capped"), GoalLimitsChange(), start_hint=HINT)


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (GoalLimitsChange(max_iterations=2), "max_iterations", "more than the 2 rounds"),
        (GoalLimitsChange(max_iterations=3, max_cost=0.5), "max_cost", "$0.5000 already spent"),
        (GoalLimitsChange(max_iterations=3, time_limit=20), "time_limit", "30.0 s already"),
        (GoalLimitsChange(max_iterations=0), "max_iterations", ">= 1"),
        (GoalLimitsChange(max_cost=-2), "max_cost", ">= 0"),
    ],
)
def test_new_limits_that_leave_a_capped_goal_no_room_name_the_field(
    change: GoalLimitsChange, field: str, words: str
) -> None:
    with pytest.raises(InvalidGoalError, match=words.replace("$", r"\$")) as caught:
        resume_limits(_status("capped"), change, start_hint=HINT)
    assert caught.value.field == field


def test_zero_lifts_a_budget() -> None:
    limits = resume_limits(
        _status("capped"),
        GoalLimitsChange(max_iterations=4, max_cost=0, time_limit=0),
        start_hint=HINT,
    )
    assert (limits.max_iterations, limits.max_cost, limits.time_limit) == (4, None, None)


def test_resume_goal_continues_a_capped_goal_with_new_limits(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish("round 1"), finish("round 2")])
    judge = TestLLM.from_messages(
        [judge_json(0.5, False, ["tests"]), judge_json(1.0, True)], usage_id="judge"
    )
    capped = run_goal(conversation, "Do it", judge, max_iterations=1)
    assert capped.status == "capped"
    with pytest.raises(NoResumableGoalError, match="new limits"):
        resume_goal(conversation, judge)

    outcome = resume_goal(conversation, judge, limits=GoalLimitsChange(max_iterations=3))
    assert (outcome.status, outcome.iterations) == ("complete", 2)
    resumed = user_texts(list(conversation.state.events))[-1]
    assert "stopped after 1 rounds (of 3 allowed now)" in resumed and "- tests" in resumed
