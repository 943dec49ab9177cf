"""GoalController's one-call API (`start`, `on_run_finished`), options and snapshots, tested with
no conversation at all: verify and the judge run in-process through the given verifier and LLM."""

from __future__ import annotations

import pytest
from goal_helpers import judge_json, sample_history, text
from openhands.sdk.conversation.goal import (
    GoalContinue,
    GoalController,
    GoalDone,
    GoalRequest,
    GoalVerdict,
    RunAgent,
    StatusRecorded,
    Stopped,
    VerifyResult,
)
from openhands.sdk.llm import LLMTransientError
from openhands.sdk.testing import TestLLM


def judge(*replies: object, costs: tuple[float, ...] = ()) -> TestLLM:
    return TestLLM.from_messages(list(replies), usage_id="judge", costs=costs)  # type: ignore[arg-type]


def goal(
    objective: str = "x", judge_llm: TestLLM | None = None, **options: object
) -> GoalController:
    """A controller for a GoalRequest with `options` (verify, max_cost, time_limit, ...)."""
    clock = options.pop("clock", None)
    verifier = options.pop("verifier", None)
    working_dir = options.pop("working_dir", None)
    request = GoalRequest.checked(objective=objective, **options)
    extra = {"clock": clock} if clock is not None else {}
    return GoalController.from_request(
        request,
        judge_llm or judge(),
        verifier=verifier,  # type: ignore[arg-type]
        working_dir=working_dir,  # type: ignore[arg-type]
        **extra,  # type: ignore[arg-type]
    )


class Clock:
    """A settable clock for the time limit."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class ScriptedVerifier:
    """Returns the given exit codes in order and records the calls."""

    def __init__(self, *exit_codes: int) -> None:
        self.exit_codes = list(exit_codes)
        self.calls: list[tuple[str, str | None]] = []

    def __call__(self, command: str, working_dir: str | None) -> VerifyResult:
        self.calls.append((command, working_dir))
        code = self.exit_codes.pop(0)
        tail = "2 passed" if code == 0 else "FAILED test_mathx.py::test_add - assert 3 == 4"
        return VerifyResult(command=command, exit_code=code, output_tail=tail)


# -- construction ----------------------------------------------------------------------------


@pytest.mark.parametrize("objective", ["", "   ", "\n"])
def test_a_blank_objective_is_rejected(objective: str) -> None:
    with pytest.raises(ValueError, match="objective"):
        GoalController(objective, judge())


@pytest.mark.parametrize("cap", [0, -1])
def test_a_cap_below_one_is_rejected(cap: int) -> None:
    with pytest.raises(ValueError, match="max_iterations"):
        GoalController("do it", judge(), max_iterations=cap)


def test_a_negative_budget_is_rejected() -> None:
    with pytest.raises(ValueError, match="max_cost"):
        goal("do it", max_cost=-1)


def test_zero_budgets_mean_unlimited() -> None:
    controller = goal("do it", max_cost=0, time_limit=0)
    assert controller.limits.max_cost is None and controller.limits.time_limit is None


def test_a_resume_iteration_at_the_cap_is_rejected() -> None:
    with pytest.raises(ValueError, match="iteration"):
        GoalController("do it", judge(), max_iterations=3, iteration=3)


def test_the_cap_cannot_be_given_twice() -> None:
    with pytest.raises(ValueError, match="max_iterations"):
        GoalController(GoalRequest(objective="x"), judge(), max_iterations=3)


def test_start_returns_the_objective() -> None:
    assert GoalController("Create hello.txt", judge()).start() == "Create hello.txt"


# -- rounds ----------------------------------------------------------------------------------


def test_a_complete_verdict_ends_the_goal_complete() -> None:
    controller = GoalController("Create hello.txt", judge(judge_json(1.0, True)))
    controller.start()
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalDone)
    assert step.outcome.status == "complete"
    assert step.outcome.iterations == 1
    assert step.outcome.verdict == GoalVerdict(score=1.0, complete=True)


def test_an_incomplete_verdict_continues_with_a_followup_naming_what_is_missing() -> None:
    controller = GoalController("Create hello.txt", judge(judge_json(0.3, False, ["hello.txt"])))
    controller.start()
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalContinue)
    assert "hello.txt" in step.followup
    assert step.verdict == GoalVerdict(score=0.3, complete=False, missing="hello.txt")
    assert controller.iteration == 1


def test_the_goal_is_capped_at_max_iterations() -> None:
    controller = GoalController(
        "Create hello.txt", judge(judge_json(0.1), judge_json(0.2)), max_iterations=2
    )
    controller.start()
    assert isinstance(controller.on_run_finished(sample_history()), GoalContinue)
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalDone)
    assert step.outcome.status == "capped"
    assert step.outcome.iterations == 2
    assert "max_iterations" in (step.outcome.reason or "")


def test_a_complete_verdict_on_the_last_round_wins_over_the_cap() -> None:
    controller = GoalController("x", judge(judge_json(1.0, True)), max_iterations=1)
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalDone) and step.outcome.status == "complete"


def test_the_followup_names_unproven_requirements() -> None:
    verdict = judge_json(
        0.5,
        False,
        [],
        requirements=[
            {"text": "mathx.add exists", "satisfied": True, "evidence": "cat mathx.py"},
            {"text": "pytest passes", "satisfied": False, "evidence": "never run"},
        ],
    )
    controller = GoalController("Build mathx", judge(verdict))
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalContinue)
    assert "pytest passes (never run)" in step.followup
    assert "mathx.add exists" not in step.followup
    assert step.verdict.requirements is not None and len(step.verdict.requirements) == 2


def test_on_run_finished_needs_a_judge() -> None:
    with pytest.raises(ValueError, match="judge_llm"):
        GoalController("x").on_run_finished(sample_history())


# -- verify ----------------------------------------------------------------------------------


def test_a_judge_saying_complete_cannot_complete_while_verify_fails() -> None:
    verifier = ScriptedVerifier(1)
    controller = goal(
        "Make tests pass", judge(judge_json(1.0, True)), verify="pytest -q", verifier=verifier
    )
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalContinue)
    assert not step.verdict.complete
    assert "exited with code 1" in step.followup
    assert "assert 3 == 4" in step.followup


def test_a_failing_verify_at_the_cap_ends_capped_not_complete() -> None:
    controller = goal(
        "Make tests pass",
        judge(judge_json(1.0, True)),
        max_iterations=1,
        verify="pytest -q",
        verifier=ScriptedVerifier(1),
    )
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalDone) and step.outcome.status == "capped"
    assert step.outcome.verify is not None and step.outcome.verify.exit_code == 1


def test_verify_passing_and_a_complete_verdict_complete_the_goal() -> None:
    verifier = ScriptedVerifier(0)
    controller = goal(
        "Make tests pass",
        judge(judge_json(1.0, True)),
        verify="pytest -q",
        working_dir="/tmp/project",
        verifier=verifier,
    )
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalDone) and step.outcome.status == "complete"
    assert verifier.calls == [("pytest -q", "/tmp/project")]


def test_the_judge_sees_the_verify_exit_code_and_output() -> None:
    llm = judge(judge_json(0.5))
    controller = goal("Make tests pass", llm, verify="pytest -q", verifier=ScriptedVerifier(1))
    controller.on_run_finished(sample_history())
    prompt = llm.calls[0][-1].text
    assert "`pytest -q` exited with code 1" in prompt
    assert "assert 3 == 4" in prompt


def test_a_verifier_that_raises_counts_as_a_failed_verification() -> None:
    def broken(command: str, working_dir: str | None) -> VerifyResult:
        raise OSError("no shell")

    controller = goal("x", judge(judge_json(1.0, True)), verify="pytest -q", verifier=broken)
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalContinue)
    assert "no shell" in step.followup


# -- budgets -----------------------------------------------------------------------------------


def test_the_cost_budget_caps_the_goal_with_the_reason() -> None:
    controller = goal("x", judge(judge_json(0.1), costs=(0.25,)), max_cost=1.0)
    step = controller.on_run_finished(sample_history(), agent_cost=0.8)
    assert isinstance(step, GoalDone)
    assert step.outcome.status == "capped"
    assert "cost budget" in (step.outcome.reason or "")
    assert step.outcome.agent_cost == pytest.approx(0.8)
    assert step.outcome.judge_cost == pytest.approx(0.25)


def test_agent_cost_is_a_per_round_delta_that_accumulates() -> None:
    controller = goal("x", judge(judge_json(0.1), judge_json(0.2)), max_cost=1.0)
    assert isinstance(controller.on_run_finished(sample_history(), agent_cost=0.4), GoalContinue)
    step = controller.on_run_finished(sample_history(), agent_cost=0.7)
    assert isinstance(step, GoalDone) and step.outcome.status == "capped"
    assert step.outcome.agent_cost == pytest.approx(1.1)


def test_judge_cost_is_counted_separately() -> None:
    controller = GoalController("x", judge(judge_json(0.1), costs=(0.05,)))
    controller.on_run_finished(sample_history(), agent_cost=0.5)
    assert controller.judge_cost == pytest.approx(0.05)
    assert controller.agent_cost == pytest.approx(0.5)
    assert controller.cost == pytest.approx(0.55)


def test_the_time_limit_caps_the_goal_with_the_reason() -> None:
    clock = Clock()
    controller = goal("x", judge(judge_json(0.1)), time_limit=60, clock=clock)
    controller.start()
    clock.now += 61
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalDone) and step.outcome.status == "capped"
    assert "time limit" in (step.outcome.reason or "")


def test_time_while_interrupted_does_not_count() -> None:
    clock = Clock()
    controller = goal("x", judge(), time_limit=60, clock=clock)
    controller.start()
    clock.now += 10
    controller.advance(Stopped(reason="stopped by user"))
    clock.now += 1_000
    assert controller.elapsed == pytest.approx(10)
    resumed = GoalController.from_status(controller.status(), judge(), clock=clock)
    resumed.begin(resume=True)
    clock.now += 5
    assert resumed.elapsed == pytest.approx(15)


# -- judge failures ------------------------------------------------------------------------------


def test_one_unparseable_judge_answer_just_means_not_complete() -> None:
    controller = GoalController("x", judge(text("Looks done to me.")))
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalContinue)
    assert step.verdict.score == 0.0 and not step.verdict.complete
    assert "judge could not assess" in step.followup


def test_three_judge_failures_in_a_row_interrupt_with_the_real_error() -> None:
    controller = GoalController(
        "x",
        judge(
            LLMTransientError("judge provider down"),
            text("no json here"),
            LLMTransientError("judge provider still down"),
        ),
    )
    assert isinstance(controller.on_run_finished(sample_history()), GoalContinue)
    assert isinstance(controller.on_run_finished(sample_history()), GoalContinue)
    step = controller.on_run_finished(sample_history())
    assert isinstance(step, GoalDone)
    assert step.outcome.status == "interrupted"
    assert "judge provider still down" in (step.outcome.error or "")
    assert "3 times in a row" in (step.outcome.reason or "")


def test_a_good_judge_answer_resets_the_failure_count() -> None:
    controller = GoalController(
        "x",
        judge(text("?"), text("?"), judge_json(0.5), text("?"), text("?"), judge_json(1.0, True)),
    )
    steps = [controller.on_run_finished(sample_history()) for _ in range(6)]
    assert all(isinstance(step, GoalContinue) for step in steps[:5])
    last = steps[-1]
    assert isinstance(last, GoalDone) and last.outcome.status == "complete"


# -- snapshots and resume ----------------------------------------------------------------------


def test_status_snapshots_the_goal_for_the_chip() -> None:
    controller = goal(
        "Make tests pass",
        judge(judge_json(0.5, False, ["tests"]), costs=(0.1,)),
        max_iterations=4,
        verify="pytest -q",
        verifier=ScriptedVerifier(1),
        max_cost=2.0,
        time_limit=600,
    )
    controller.start()
    controller.on_run_finished(sample_history(), agent_cost=0.3)
    status = controller.status()
    assert status.active and status.status == "running"
    assert (status.iteration, status.max_iterations) == (1, 4)
    assert status.objective == "Make tests pass"
    assert status.verdict is not None and status.verdict.missing == "tests"
    assert status.verify is not None and status.verify.exit_code == 1
    assert status.cost == pytest.approx(0.4) and status.judge_cost == pytest.approx(0.1)
    assert (status.verify_command, status.max_cost, status.time_limit) == ("pytest -q", 2.0, 600)


def test_from_status_rebuilds_objective_iteration_caps_and_costs() -> None:
    original = goal(
        "Make tests pass",
        judge(judge_json(0.5, False, ["tests"]), costs=(0.1,)),
        max_iterations=4,
        verify="pytest -q",
        max_cost=2.0,
        verifier=ScriptedVerifier(1),
    )
    original.on_run_finished(sample_history(), agent_cost=0.3)
    original.advance(Stopped(reason="server died"))
    saved = original.status()
    rebuilt = GoalController.from_status(saved, judge(), working_dir="/w")
    assert rebuilt.objective == "Make tests pass"
    assert (rebuilt.iteration, rebuilt.max_iterations) == (1, 4)
    assert (rebuilt.verify_command, rebuilt.limits.max_cost) == ("pytest -q", 2.0)
    assert rebuilt.cost == pytest.approx(0.4) and rebuilt.judge_cost == pytest.approx(0.1)
    assert rebuilt.working_dir == "/w"
    assert rebuilt.last_round == saved.last_round and rebuilt.last_round is not None


def test_the_resume_prompt_restates_the_objective_and_what_is_missing() -> None:
    controller = GoalController("Make tests pass", judge(judge_json(0.5, False, ["tests"])))
    controller.on_run_finished(sample_history())
    controller.advance(Stopped(reason="stopped by user"))
    resumed = GoalController.from_status(controller.status(), judge())
    resumed.begin(resume=True)
    while not isinstance(step := resumed.next(), RunAgent):
        resumed.advance(StatusRecorded())
    assert step.message is not None
    assert "Make tests pass" in step.message
    assert "- tests" in step.message


def test_an_interruption_counts_the_round_that_was_cut() -> None:
    controller = GoalController("x", judge(judge_json(0.1)))
    controller.start()
    controller.on_run_finished(sample_history())
    controller.advance(
        Stopped(reason="driver error", error="LLMTransientError: down", agent_cost=0.2)
    )
    outcome = controller.outcome
    assert outcome is not None and outcome.status == "interrupted"
    assert outcome.iterations == 2
    assert outcome.error == "LLMTransientError: down"
    assert outcome.agent_cost == pytest.approx(0.2)


def test_an_interruption_before_any_round_reports_one_iteration() -> None:
    controller = GoalController("x", judge())
    controller.start()
    controller.advance(Stopped(reason="stopped by user"))
    assert controller.outcome is not None and controller.outcome.iterations == 1
