"""GoalRequest and GoalLimits: one model and one meaning for a goal's options everywhere."""

from __future__ import annotations

import math

import pytest
from openhands.sdk.conversation.goal import (
    GoalLimits,
    GoalRequest,
    InvalidGoalError,
)
from openhands.sdk.errors import OpenHandsError
from openhands.sdk.testing import TestLLM
from pydantic import SecretStr


@pytest.mark.parametrize("field", ["max_cost", "time_limit"])
def test_zero_means_unlimited(field: str) -> None:
    request = GoalRequest.checked(objective="do it", **{field: 0})
    assert getattr(request, field) is None


@pytest.mark.parametrize("field", ["max_cost", "time_limit"])
@pytest.mark.parametrize("value", [-0.01, math.nan])
def test_a_negative_or_nan_limit_is_refused_naming_the_field(field: str, value: float) -> None:
    with pytest.raises(InvalidGoalError, match=f"^{field} .*0 or null: unlimited") as caught:
        GoalRequest.checked(objective="do it", **{field: value})
    assert caught.value.field == field


def test_invalid_goal_errors_are_value_errors_under_the_root() -> None:
    with pytest.raises(InvalidGoalError) as caught:
        GoalRequest.checked(objective=" ")
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, OpenHandsError)
    assert caught.value.field == "objective"


@pytest.mark.parametrize("value", [0, -3, True])
def test_max_iterations_must_be_a_whole_number_of_rounds(value: object) -> None:
    with pytest.raises(InvalidGoalError, match="max_iterations"):
        GoalRequest.checked(objective="do it", max_iterations=value)


def test_a_blank_verify_command_is_refused() -> None:
    with pytest.raises(InvalidGoalError, match="verify"):
        GoalRequest.checked(objective="do it", verify="  ")


def test_objective_and_verify_are_stripped() -> None:
    request = GoalRequest.checked(objective="  do it \n", verify=" pytest -q ")
    assert (request.objective, request.verify) == ("do it", "pytest -q")


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(InvalidGoalError, match="max_rounds"):
        GoalRequest.checked(objective="do it", max_rounds=3)


def test_the_wire_form_carries_the_judges_key_and_drops_unset_options() -> None:
    judge = TestLLM(usage_id="goal-judge", api_key=SecretStr("sk-judge"))
    wire = GoalRequest.checked(objective="do it", judge_llm=judge).to_wire()
    assert wire["judge_llm"]["api_key"] == "sk-judge"
    assert "verify" not in wire and "max_cost" not in wire
    assert GoalRequest.model_validate(wire).objective == "do it"


def test_limits_name_the_limit_that_was_reached() -> None:
    limits = GoalLimits(max_iterations=3, max_cost=1.0, time_limit=60)
    assert limits.exceeded(iterations=1, agent_cost=0.2, judge_cost=0.1, elapsed=5) is None
    assert "max_iterations (3)" in (
        limits.exceeded(iterations=3, agent_cost=0, judge_cost=0, elapsed=0) or ""
    )
    cost = limits.exceeded(iterations=1, agent_cost=0.75, judge_cost=0.25, elapsed=0) or ""
    assert cost.startswith("cost budget reached") and "judge $0.2500" in cost
    assert (limits.exceeded(iterations=1, agent_cost=0, judge_cost=0, elapsed=60) or "").startswith(
        "time limit reached"
    )
