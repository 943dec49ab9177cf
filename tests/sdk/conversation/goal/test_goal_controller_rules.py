"""GoalController as a step machine: every rule a driver relies on, fed by hand-made results.

No conversation, no thread, no I/O: each test begins a goal, reads `next()` and answers with
the result a driver would give, and checks the steps the controller decides on.
"""

from __future__ import annotations

import pytest
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.conversation.goal import (
    SNAPSHOT,
    ApprovalDecided,
    AskJudge,
    AwaitApproval,
    Finish,
    GoalController,
    GoalRequest,
    GoalStatus,
    GoalStepError,
    GoalVerdict,
    Judged,
    MessageRefused,
    RecordStatus,
    RunAgent,
    RunEnded,
    RunVerify,
    StatusRecorded,
    Stopped,
    Verified,
    VerifyResult,
)
from openhands.sdk.conversation.goal.steps import DriverStep

Status = ConversationExecutionStatus
FINISHED = RunEnded(status=Status.FINISHED)
NOT_YET = Judged(verdict=GoalVerdict(score=0.2, missing="tests"))
DONE = Judged(verdict=GoalVerdict(score=1.0, complete=True))


class Clock:
    """A settable clock."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def goal(clock: Clock | None = None, **options: object) -> GoalController:
    request = GoalRequest.checked(objective="make it", **options)
    return GoalController.from_request(request, clock=clock or Clock())


def step_after_records(
    controller: GoalController, seen: list[GoalStatus] | None = None
) -> DriverStep:
    """Record every pending status (into `seen`); the first step that is not a record."""
    while isinstance(step := controller.next(), RecordStatus):
        if seen is not None:
            seen.append(step.status)
        controller.advance(StatusRecorded())
    return step


def phases(statuses: list[GoalStatus]) -> list[str | None]:
    return [status.phase if status.active else status.status for status in statuses]


def passed(command: str = "pytest -q") -> Verified:
    return Verified(result=VerifyResult(command=command, exit_code=0))


# -- starting ----------------------------------------------------------------------------------


def test_a_goal_begins_by_recording_running_then_running_the_agent_with_the_objective() -> None:
    controller = goal()
    controller.begin()
    seen: list[GoalStatus] = []
    step = step_after_records(controller, seen)
    assert phases(seen) == ["agent"]
    assert seen[0].status == "running" and seen[0].active
    assert step == RunAgent(message="make it")


def test_next_gives_the_same_step_until_it_is_answered() -> None:
    controller = goal()
    controller.begin()
    step = step_after_records(controller)
    assert controller.next() == step


def test_a_goal_begun_on_a_waiting_conversation_first_waits_for_the_approval() -> None:
    controller = goal()
    controller.begin(conversation_status=Status.WAITING_FOR_CONFIRMATION)
    seen: list[GoalStatus] = []
    assert isinstance(step_after_records(controller, seen), AwaitApproval)
    assert phases(seen) == ["waiting_for_approval"]

    controller.advance(ApprovalDecided(status=Status.IDLE))
    assert step_after_records(controller, seen) == RunAgent(message="make it")
    assert phases(seen) == ["waiting_for_approval", "agent"]


def test_a_pause_while_waiting_for_the_approval_interrupts() -> None:
    controller = goal()
    controller.begin(conversation_status=Status.WAITING_FOR_CONFIRMATION)
    step_after_records(controller)
    controller.advance(ApprovalDecided(status=Status.PAUSED))
    seen: list[GoalStatus] = []
    step = step_after_records(controller, seen)
    assert isinstance(step, Finish)
    assert (step.outcome.status, step.outcome.reason) == ("interrupted", "conversation paused")
    assert seen[-1].reason == "conversation paused" and not seen[-1].active


def test_begin_twice_is_refused() -> None:
    controller = goal()
    controller.begin()
    with pytest.raises(GoalStepError):
        controller.begin()


def test_next_before_begin_is_refused() -> None:
    with pytest.raises(GoalStepError, match="begin"):
        goal().next()


def test_a_result_for_another_step_is_refused() -> None:
    controller = goal()
    controller.begin()
    step_after_records(controller)
    with pytest.raises(GoalStepError, match="RunAgent"):
        controller.advance(DONE)


# -- how a run ended ---------------------------------------------------------------------------


def test_a_finished_run_is_judged() -> None:
    controller = goal()
    controller.begin()
    step_after_records(controller)
    controller.advance(FINISHED)
    seen: list[GoalStatus] = []
    step = step_after_records(controller, seen)
    assert isinstance(step, AskJudge) and step.objective == "make it"
    assert phases(seen) == ["judging"]


def test_a_failed_run_interrupts_with_its_error() -> None:
    controller = goal()
    controller.begin()
    step_after_records(controller)
    controller.advance(
        RunEnded(status=Status.ERROR, error="LLMTransientError: down", code="LLMTransientError")
    )
    step = step_after_records(controller)
    assert isinstance(step, Finish)
    assert (step.outcome.reason, step.outcome.error) == (
        "agent error",
        "the agent's run failed: LLMTransientError: down",
    )


def test_a_run_that_hit_its_step_cap_is_judged() -> None:
    controller = goal()
    controller.begin()
    step_after_records(controller)
    end = RunEnded(
        status=Status.ERROR, error="MaxIterationsReached: 5", code="MaxIterationsReached"
    )
    controller.advance(end)
    assert isinstance(step_after_records(controller), AskJudge)


def test_a_pause_no_limit_explains_interrupts_without_an_error() -> None:
    controller = goal()
    controller.begin()
    step_after_records(controller)
    controller.advance(RunEnded(status=Status.PAUSED, agent_cost=0.1))
    step = step_after_records(controller)
    assert isinstance(step, Finish)
    assert (step.outcome.status, step.outcome.reason, step.outcome.error) == (
        "interrupted",
        "conversation paused",
        None,
    )
    assert step.outcome.agent_cost == pytest.approx(0.1)


def test_a_run_waiting_for_approval_waits_then_runs_again_without_a_message() -> None:
    controller = goal()
    controller.begin()
    step_after_records(controller)
    controller.advance(RunEnded(status=Status.WAITING_FOR_CONFIRMATION))
    seen: list[GoalStatus] = []
    assert isinstance(step_after_records(controller, seen), AwaitApproval)
    controller.advance(ApprovalDecided(status=Status.IDLE))
    step = step_after_records(controller, seen)
    assert isinstance(step, RunAgent) and step.message is None
    assert phases(seen) == ["waiting_for_approval", "agent"]
    assert controller.iteration == 0  # nothing was judged while the call waited


def test_a_refused_message_interrupts_the_goal_as_blocked() -> None:
    controller = goal()
    controller.begin()
    step_after_records(controller)
    controller.advance(MessageRefused(error="no swearing"))
    step = step_after_records(controller)
    assert isinstance(step, Finish)
    assert (step.outcome.reason, step.outcome.error) == ("message blocked by a hook", "no swearing")


# -- limits while a run goes -------------------------------------------------------------------


def test_a_run_step_carries_the_time_and_cost_left() -> None:
    clock = Clock()
    controller = goal(clock, max_cost=1.0, time_limit=60)
    controller.begin()
    clock.now += 10
    step = step_after_records(controller)
    assert isinstance(step, RunAgent)
    assert (step.time_left, step.cost_left) == (60, 1.0)
    controller.advance(RunEnded(status=Status.FINISHED, agent_cost=0.25))
    step_after_records(controller)
    controller.advance(Judged(verdict=GoalVerdict(), cost=0.05))
    step = step_after_records(controller)
    assert isinstance(step, RunAgent)
    assert step.time_left == pytest.approx(50)
    assert step.cost_left == pytest.approx(0.7)


def test_a_run_paused_for_the_cost_limit_is_judged_and_caps_the_goal() -> None:
    controller = goal(max_cost=1.0)
    controller.begin()
    step_after_records(controller)
    controller.advance(RunEnded(status=Status.PAUSED, agent_cost=1.0, limit="cost budget"))
    assert isinstance(step_after_records(controller), AskJudge)
    controller.advance(NOT_YET)
    step = step_after_records(controller)
    assert isinstance(step, Finish)
    assert step.outcome.status == "capped" and "cost budget" in (step.outcome.reason or "")
    assert step.outcome.iterations == 1


def test_a_run_paused_for_the_time_limit_caps_even_if_the_clock_reads_a_hair_early() -> None:
    clock = Clock()
    controller = goal(clock, time_limit=60)
    controller.begin()
    step_after_records(controller)
    clock.now += 59.9999
    controller.advance(RunEnded(status=Status.PAUSED, limit="time limit"))
    step_after_records(controller)
    controller.advance(NOT_YET)
    step = step_after_records(controller)
    assert isinstance(step, Finish)
    assert step.outcome.status == "capped" and "time limit" in (step.outcome.reason or "")


def test_a_complete_verdict_wins_over_the_limit_its_round_reached() -> None:
    controller = goal(max_cost=1.0)
    controller.begin()
    step_after_records(controller)
    controller.advance(RunEnded(status=Status.PAUSED, agent_cost=2.0, limit="cost budget"))
    step_after_records(controller)
    controller.advance(DONE)
    step = step_after_records(controller)
    assert isinstance(step, Finish) and step.outcome.status == "complete"


def test_a_goal_with_its_time_used_up_skips_the_run_and_is_judged_at_once() -> None:
    clock = Clock()
    controller = goal(clock, time_limit=10)
    controller.begin()
    controller.advance(Stopped(reason="stopped by user"))
    clock.now += 20
    resumed = GoalController.from_status(
        controller.status().model_copy(update={"elapsed": 10.0}), clock=clock
    )
    resumed.begin(resume=True)
    seen: list[GoalStatus] = []
    assert isinstance(step_after_records(resumed, seen), AskJudge)  # no run step at all
    resumed.advance(NOT_YET)
    step = step_after_records(resumed, seen)
    assert isinstance(step, Finish)
    assert step.outcome.status == "capped" and "time limit" in (step.outcome.reason or "")


# -- pauses in the checks ----------------------------------------------------------------------


def test_a_pause_during_verify_interrupts_before_the_judge_counting_the_cut_round() -> None:
    controller = goal(verify="pytest -q")
    controller.begin()
    step_after_records(controller)
    controller.advance(FINISHED)
    assert isinstance(step_after_records(controller), RunVerify)
    controller.advance(
        Verified(
            result=VerifyResult(command="pytest -q", exit_code=0), conversation_status=Status.PAUSED
        )
    )
    step = step_after_records(controller)
    assert isinstance(step, Finish)
    assert (step.outcome.reason, step.outcome.iterations) == ("conversation paused", 1)
    assert controller.iteration == 0


def test_a_pause_during_the_judge_interrupts_after_the_round_is_counted() -> None:
    controller = goal()
    controller.begin()
    step_after_records(controller)
    controller.advance(FINISHED)
    step_after_records(controller)
    controller.advance(NOT_YET.model_copy(update={"conversation_status": Status.PAUSED}))
    step = step_after_records(controller)
    assert isinstance(step, Finish)
    assert (step.outcome.reason, step.outcome.iterations) == ("conversation paused", 1)
    assert controller.iteration == 1


def test_a_complete_verdict_wins_over_a_pause_during_the_judge() -> None:
    controller = goal()
    controller.begin()
    step_after_records(controller)
    controller.advance(FINISHED)
    step_after_records(controller)
    controller.advance(DONE.model_copy(update={"conversation_status": Status.PAUSED}))
    step = step_after_records(controller)
    assert isinstance(step, Finish) and step.outcome.status == "complete"


# -- phases, rounds, stops ---------------------------------------------------------------------


def test_the_phases_of_a_round_with_verify_are_recorded_in_order() -> None:
    controller = goal(verify="pytest -q", max_iterations=2)
    controller.begin()
    seen: list[GoalStatus] = []
    for judged in (NOT_YET, DONE):
        step_after_records(controller, seen)
        controller.advance(FINISHED)
        step_after_records(controller, seen)
        controller.advance(passed())
        step_after_records(controller, seen)
        controller.advance(judged)
    assert isinstance(step_after_records(controller, seen), Finish)
    assert phases(seen) == [
        "agent",
        "verifying",
        "judging",
        "agent",
        "verifying",
        "judging",
        "complete",
    ]


def test_the_verify_step_carries_the_sdk_defaults() -> None:
    controller = GoalController.from_request(
        GoalRequest(objective="x", verify="pytest -q"), working_dir="/w"
    )
    controller.begin()
    step_after_records(controller)
    controller.advance(FINISHED)
    step = step_after_records(controller)
    assert step == RunVerify(command="pytest -q", working_dir="/w", timeout=600.0, tail_chars=4000)


def test_each_judged_round_is_summarised_with_its_own_costs_and_time() -> None:
    clock = Clock()
    controller = goal(clock)
    controller.begin()
    for seconds, agent, judge in ((4, 0.5, 0.01), (6, 0.25, 0.02)):
        step_after_records(controller)
        clock.now += seconds
        controller.advance(RunEnded(status=Status.FINISHED, agent_cost=agent))
        step_after_records(controller)
        controller.advance(Judged(verdict=GoalVerdict(score=0.9), cost=judge))
    last = controller.status().last_round
    assert last is not None
    assert (last.iteration, last.score) == (2, 0.9)
    assert (last.agent_cost, last.judge_cost, last.seconds) == (0.25, 0.02, pytest.approx(6))


def test_a_stop_interrupts_with_its_reason_and_the_cut_runs_cost() -> None:
    controller = goal()
    controller.begin()
    step_after_records(controller)
    controller.advance(Stopped(reason="user message", agent_cost=0.3))
    seen: list[GoalStatus] = []
    step = step_after_records(controller, seen)
    assert isinstance(step, Finish)
    assert (step.outcome.reason, step.outcome.error) == ("user message", None)
    assert step.outcome.agent_cost == pytest.approx(0.3)
    assert (seen[-1].status, seen[-1].reason, seen[-1].phase) == (
        "interrupted",
        "user message",
        None,
    )


def test_a_stop_after_the_goal_ended_leaves_its_outcome() -> None:
    controller = goal()
    controller.begin()
    step_after_records(controller)
    controller.advance(FINISHED)
    step_after_records(controller)
    controller.advance(DONE)
    final = controller.next()
    assert isinstance(final, RecordStatus) and final.status.status == "complete"
    controller.advance(Stopped(reason="stopped by user"))  # the final record could not be made
    step = controller.next()
    assert isinstance(step, Finish) and step.outcome.status == "complete"


# -- snapshots ---------------------------------------------------------------------------------


def test_a_restored_snapshot_decides_exactly_as_the_original() -> None:
    clock = Clock()
    original = goal(clock, verify="pytest -q", max_cost=5.0)
    original.begin()
    step_after_records(original)
    original.advance(RunEnded(status=Status.FINISHED, agent_cost=0.5))
    restored = GoalController.restore(original.snapshot(), clock=clock)
    for controller in (original, restored):
        step_after_records(controller)
        controller.advance(passed())
        step_after_records(controller)
        controller.advance(NOT_YET)
    assert original.next() == restored.next()
    assert original.status().model_dump(exclude={"elapsed"}) == restored.status().model_dump(
        exclude={"elapsed"}
    )


def test_a_snapshot_survives_json() -> None:
    controller = goal(max_cost=2.0)
    controller.begin()
    snapshot = controller.snapshot()
    again = SNAPSHOT.validate_json(SNAPSHOT.dump_json(snapshot))
    assert again == snapshot
    assert GoalController.restore(again).next() == controller.next()
