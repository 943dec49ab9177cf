"""The goal data models: verdict coercion, status and outcome validation, JSON round trips."""

from __future__ import annotations

import math

import pytest
from openhands.sdk.conversation.goal import (
    GoalLimits,
    GoalOutcome,
    GoalRequirement,
    GoalStatus,
    GoalVerdict,
    VerifyResult,
)
from pydantic import ValidationError


def test_missing_is_words_and_a_string_is_also_its_one_item() -> None:
    verdict = GoalVerdict(score=0.5, complete=False, missing="tests")
    assert (verdict.missing, verdict.missing_items) == ("tests", ["tests"])


def test_missing_given_as_a_list_is_joined_and_kept_in_missing_items() -> None:
    verdict = GoalVerdict.model_validate({"missing": ["tests", " ", "docs"]})
    assert (verdict.missing, verdict.missing_items) == ("tests; docs", ["tests", "docs"])


def test_missing_items_alone_give_the_words_too() -> None:
    assert GoalVerdict(missing_items=["tests", "docs"]).missing == "tests; docs"


def test_missing_null_is_nothing_missing() -> None:
    verdict = GoalVerdict.model_validate({"missing": None})
    assert (verdict.missing, verdict.missing_items) == ("", [])


@pytest.mark.parametrize(
    ("raw", "expected"), [(1.7, 1.0), (-2, 0.0), ("0.25", 0.25), (math.nan, 0.0), ("high", 0.0)]
)
def test_score_is_clamped_to_zero_one(raw: object, expected: float) -> None:
    assert GoalVerdict.model_validate({"score": raw}).score == expected


def test_requirements_are_optional() -> None:
    assert GoalVerdict(score=1, complete=True, missing="").requirements is None


def test_unmet_requirements_lists_only_unsatisfied_ones() -> None:
    verdict = GoalVerdict(
        requirements=[
            GoalRequirement(text="a", satisfied=True),
            GoalRequirement(text="b", satisfied=False, evidence="no test run"),
        ]
    )
    assert [req.text for req in verdict.unmet_requirements] == ["b"]


def test_verify_result_passes_only_on_exit_zero() -> None:
    assert VerifyResult(command="true", exit_code=0, output_tail="", timed_out=False).passed
    assert not VerifyResult(command="false", exit_code=1, output_tail="", timed_out=False).passed


def test_status_round_trips_through_json() -> None:
    status = GoalStatus(
        active=True,
        status="running",
        iteration=2,
        limits=GoalLimits(max_iterations=5, max_cost=1.0),
        objective="ship it",
        verdict=GoalVerdict(score=0.5, missing="tests"),
        verify=VerifyResult(command="pytest -q", exit_code=1, output_tail="1 failed"),
        cost=0.3,
        judge_cost=0.1,
        verify_command="pytest -q",
    )
    again = GoalStatus.model_validate_json(status.model_dump_json())
    assert again == status
    assert again.agent_cost == pytest.approx(0.2)


def test_a_status_shows_the_round_cap_at_the_top_and_the_limits_in_one_object() -> None:
    status = GoalStatus(
        active=True,
        status="running",
        iteration=0,
        objective="x",
        limits=GoalLimits(max_iterations=4, time_limit=60),
    )
    dumped = status.model_dump(mode="json")
    assert dumped["max_iterations"] == 4  # the reference's field, for its clients
    assert dumped["limits"] == {"max_iterations": 4, "max_cost": None, "time_limit": 60.0}
    assert "max_cost" not in dumped and "time_limit" not in dumped
    assert (status.max_cost, status.time_limit) == (None, 60.0)


def test_a_status_stored_before_limits_were_one_object_still_loads() -> None:
    # A goal event value as an earlier version wrote it to events.jsonl (flat limits).
    stored = (
        '{"active": false, "status": "interrupted", "iteration": 1, "max_iterations": 3, '
        '"objective": "ship it", "phase": null, "verdict": null, "verify": null, '
        '"last_round": null, "error": null, "cost": 0.2, "judge_cost": 0.05, '
        '"reason": "server restart", "verify_command": "pytest -q", "max_cost": 1.5, '
        '"time_limit": 600.0, "elapsed": 12.5, "judge_failures": 0}'
    )
    status = GoalStatus.model_validate_json(stored)
    assert status.limits == GoalLimits(max_iterations=3, max_cost=1.5, time_limit=600)
    assert (status.max_iterations, status.reason, status.elapsed) == (3, "server restart", 12.5)


def test_status_rejects_an_unknown_status_name() -> None:
    with pytest.raises(ValidationError):
        GoalStatus(active=False, status="done", iteration=0, objective="x")  # type: ignore[arg-type]


def test_outcome_needs_at_least_one_iteration() -> None:
    with pytest.raises(ValidationError):
        GoalOutcome(status="complete", iterations=0)


def test_outcome_cost_is_agent_plus_judge() -> None:
    outcome = GoalOutcome(status="capped", iterations=1, agent_cost=0.5, judge_cost=0.25)
    assert outcome.cost == 0.75
    assert not outcome.complete
