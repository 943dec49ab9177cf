"""GoalController's rules for drivers: run ends, budgets during a run, phases, round summaries.

Every driver (run_goal, the server's task, a workflow) asks these instead of deciding itself,
so they are tested here with no conversation, no thread and no clock but a settable one.
"""

from __future__ import annotations

import pytest
from goal_helpers import judge_json, sample_history
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.conversation.goal import (
    GoalContinue,
    GoalController,
    GoalDone,
    GoalInterruption,
    RunEnd,
    VerifyResult,
)
from openhands.sdk.testing import TestLLM

Status = ConversationExecutionStatus


def judge(*replies: object, costs: tuple[float, ...] = ()) -> TestLLM:
    return TestLLM.from_messages(list(replies), usage_id="judge", costs=costs)  # type: ignore[arg-type]


class Clock:
    """A settable clock."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def passing(command: str, working_dir: str | None) -> VerifyResult:
    return VerifyResult(command=command, exit_code=0, output_tail="ok")


# -- how a run ended ---------------------------------------------------------------------------


def test_a_finished_run_is_judged() -> None:
    assert GoalController("x", judge()).classify_run_end(RunEnd(status=Status.FINISHED)) is None


def test_a_failed_run_interrupts_with_its_error() -> None:
    end = RunEnd(status=Status.ERROR, error="LLMTransientError: down", code="LLMTransientError")
    assert GoalController("x", judge()).classify_run_end(end) == GoalInterruption(
        reason="agent error", error="the agent's run failed: LLMTransientError: down"
    )


def test_a_run_that_hit_its_step_cap_is_judged() -> None:
    end = RunEnd(status=Status.ERROR, error="MaxIterationsReached: 5", code="MaxIterationsReached")
    assert GoalController("x", judge()).classify_run_end(end) is None


def test_a_pause_no_budget_explains_interrupts_without_an_error() -> None:
    controller = GoalController("x", judge())
    controller.start()
    assert controller.classify_run_end(RunEnd(status=Status.PAUSED)) == GoalInterruption(
        reason="conversation paused"
    )


def test_a_pause_made_for_the_cost_budget_is_judged() -> None:
    controller = GoalController("x", judge(), max_cost=1.0)
    controller.start()
    assert controller.check_budget(pending_agent_cost=0.4) is None
    assert controller.check_budget(pending_agent_cost=1.0) == "cost budget"
    assert controller.classify_run_end(RunEnd(status=Status.PAUSED)) is None


def test_a_budget_trips_once_per_round() -> None:
    controller = GoalController("x", judge(judge_json(0.1)), max_cost=1.0, max_iterations=5)
    controller.start()
    assert controller.check_budget(pending_agent_cost=2.0) == "cost budget"
    assert controller.check_budget(pending_agent_cost=3.0) is None
    assert controller.time_up() is None
    assert controller.budget_tripped == "cost budget"


def test_a_pause_after_a_judged_round_interrupts_even_if_the_last_run_tripped_a_budget() -> None:
    clock = Clock()
    controller = GoalController(
        "x", judge(judge_json(0.1)), time_limit=60, max_iterations=5, clock=clock
    )
    controller.start()
    assert isinstance(controller.on_run_finished(sample_history()), GoalContinue)
    # The next round began with the follow-up: an old trip does not excuse a new pause.
    assert controller.budget_tripped is None
    assert controller.classify_run_end(RunEnd(status=Status.PAUSED)) is not None


def test_a_timer_that_fired_caps_the_goal_even_if_the_clock_reads_a_hair_early() -> None:
    clock = Clock()
    controller = GoalController("x", judge(judge_json(0.1)), time_limit=60, clock=clock)
    controller.start()
    clock.now += 59.9999
    assert controller.time_up() == "time limit"
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalDone) and step.outcome.status == "capped"
    assert "time limit" in (step.outcome.reason or "")


def test_budget_exhausted_counts_spending_not_yet_reported() -> None:
    clock = Clock()
    controller = GoalController("x", judge(), max_cost=1.0, time_limit=10, clock=clock)
    controller.start()
    assert controller.budget_exhausted(0.5) is None
    assert controller.budget_exhausted(1.0) == "cost budget"
    clock.now += 10
    assert controller.budget_exhausted(0.0) == "time limit"


# -- phases and rounds ---------------------------------------------------------------------------


def test_phases_are_announced_before_verify_and_before_the_judge() -> None:
    seen: list[tuple[str, str | None]] = []
    controller = GoalController(
        "x", judge(judge_json(0.1)), verify="pytest -q", verifier=passing, max_iterations=3
    )
    controller.start()
    assert controller.phase == "agent"
    controller.on_run_finished(
        sample_history(), on_phase=lambda phase: seen.append((phase, controller.phase))
    )
    assert seen == [("verifying", "verifying"), ("judging", "judging")]
    assert controller.phase == "agent"  # the follow-up starts the next round


def test_an_ended_goal_has_no_phase() -> None:
    controller = GoalController("x", judge(judge_json(1.0, True)))
    controller.start()
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalDone)
    assert controller.final_status(step.outcome).phase is None


def test_each_judged_round_is_summarised_with_its_own_costs_and_time() -> None:
    clock = Clock()
    controller = GoalController(
        "x",
        judge(judge_json(0.3, False, "tests"), judge_json(0.9), costs=(0.01, 0.02)),
        verify="pytest -q",
        verifier=passing,
        clock=clock,
    )
    controller.start()
    clock.now += 4
    controller.on_run_finished(sample_history(), agent_cost=0.5)
    clock.now += 6
    controller.on_run_finished(sample_history(), agent_cost=0.25)
    last = controller.running_status().last_round
    assert last is not None
    assert (last.iteration, last.score, last.verify_exit_code) == (2, 0.9, 0)
    assert (last.agent_cost, last.judge_cost, last.seconds) == (0.25, 0.02, pytest.approx(6))


def test_from_status_keeps_the_last_round() -> None:
    controller = GoalController("x", judge(judge_json(0.3, False, "tests")))
    controller.start()
    controller.on_run_finished(sample_history())
    saved = controller.status(active=False, status="interrupted")
    rebuilt = GoalController.from_status(saved, judge())
    assert rebuilt.last_round == saved.last_round and rebuilt.last_round is not None


# -- the steps a workflow runs as separate activities --------------------------------------------


def test_the_split_steps_decide_exactly_as_on_run_finished() -> None:
    replies = (judge_json(0.4, False, "docs"), judge_json(1.0, True))
    whole = GoalController("x", judge(*replies), verify="pytest -q", verifier=passing)
    split = GoalController("x", judge(*replies), verify="pytest -q", verifier=passing)
    for _ in range(2):
        expected = whole.on_run_finished(sample_history(), agent_cost=0.1)
        split.enter_phase("verifying")
        verify = split.run_verify()
        split.enter_phase("judging")
        answer = split.run_judge(sample_history(), verify)
        step = split.record_round(
            answer.verdict,
            verify=verify,
            judge_error=answer.error,
            agent_cost=0.1,
            judge_cost=answer.cost,
        )
        assert type(step) is type(expected)
        if isinstance(step, GoalContinue) and isinstance(expected, GoalContinue):
            assert (step.verdict, step.followup) == (expected.verdict, expected.followup)
    assert split.running_status().model_dump(exclude={"elapsed", "last_round"}) == (
        whole.running_status().model_dump(exclude={"elapsed", "last_round"})
    )


def test_interrupted_without_an_error_shows_only_the_reason() -> None:
    controller = GoalController("x", judge())
    controller.start()
    outcome = controller.interrupted(None, reason="stopped by user")
    status = controller.final_status(outcome)
    assert (outcome.error, status.error, status.reason) == (None, None, "stopped by user")
