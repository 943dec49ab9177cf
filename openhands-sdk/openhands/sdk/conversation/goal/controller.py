"""`GoalController`: every decision of the goal loop, and nothing else.

A driver (the sync `run_goal`, the agent server's task, a durable workflow) only moves
messages and runs: it sends `start()` to the agent, runs it, asks `classify_run_end(...)`
whether that run's end interrupts the goal, and otherwise has the round checked. The check
has three steps a workflow can run as separate activities: `run_verify()` (a subprocess),
`run_judge(...)` (an LLM call) and `record_round(...)` (the pure decision);
`on_run_finished(events)` does all three. Whatever the driver, the rules are the ones here:
which run failures only end a round, when a budget pauses a run, when a paused conversation
interrupts the goal, when a limit caps it, when judge failures interrupt it.

The controller does no I/O of its own (verify and the judge go through the injected verifier
and judge LLM), reads time only through its `clock`, and its whole state fits in a
`GoalStatus`, so `from_status` rebuilds it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from openhands.sdk.contracts import EventHistory
from openhands.sdk.conversation.goal.budget import BudgetTrip, WorkClock
from openhands.sdk.conversation.goal.errors import InvalidGoalError
from openhands.sdk.conversation.goal.judge import JudgeAnswer, ask_judge, gate_on_verify
from openhands.sdk.conversation.goal.models import (
    AGENT_ERROR,
    PAUSED,
    GoalContinue,
    GoalDone,
    GoalInterruption,
    GoalOutcome,
    GoalOutcomeStatus,
    GoalPhase,
    GoalRound,
    GoalStatus,
    GoalStatusName,
    GoalStep,
    GoalVerdict,
    RunEnd,
    VerifyResult,
)
from openhands.sdk.conversation.goal.options import (
    COST_BUDGET,
    DEFAULT_MAX_ITERATIONS,
    TIME_LIMIT,
    GoalLimits,
    GoalRequest,
)
from openhands.sdk.conversation.goal.prompts import followup_prompt, resume_prompt
from openhands.sdk.conversation.goal.transcript import DEFAULT_TRANSCRIPT_CHARS, TranscriptWindow
from openhands.sdk.conversation.goal.verify import (
    DEFAULT_VERIFY_TIMEOUT,
    Verifier,
    run_verify_command,
    safe_verify,
)
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.event.base import Event
from openhands.sdk.llm.llm import LLM

MAX_JUDGE_FAILURES = 3
"""Judge failures in a row (errors or unparseable answers) that interrupt a goal."""

ROUND_ENDING_ERRORS = frozenset({"MaxIterationsReached"})
"""`ConversationRunError` codes that just end a round (it is judged); others interrupt."""

PhaseCallback = Callable[[GoalPhase], None]
"""Called with the new phase before verify runs and before the judge is asked."""


class GoalController:
    """Decides a goal loop: judge each round, then continue with a follow-up or stop.

    Limits: `max_iterations` rounds (>= 1); optional `max_cost` in USD for agent plus judge
    and `time_limit` in wall-clock seconds (0 or None: unlimited; negative: refused), as in
    `GoalLimits`. `verify` is a shell command run in `working_dir` after each round; the goal
    cannot complete unless it exits 0. `iteration` is the number of rounds already judged
    (for resuming). Invalid options raise `InvalidGoalError` (a ValueError) naming the field.
    """

    def __init__(
        self,
        objective: str,
        judge_llm: LLM,
        *,
        max_iterations: int = DEFAULT_MAX_ITERATIONS,
        verify: str | None = None,
        working_dir: str | None = None,
        max_cost: float | None = None,
        time_limit: float | None = None,
        iteration: int = 0,
        verifier: Verifier | None = None,
        verify_timeout: float = DEFAULT_VERIFY_TIMEOUT,
        transcript_chars: int = DEFAULT_TRANSCRIPT_CHARS,
        max_judge_failures: int = MAX_JUDGE_FAILURES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        request = GoalRequest.checked(
            objective=objective,
            verify=verify,
            max_iterations=max_iterations,
            max_cost=max_cost,
            time_limit=time_limit,
        )
        if not 0 <= iteration < request.max_iterations:
            raise InvalidGoalError(
                f"iteration must be in 0..{request.max_iterations - 1} (rounds already done), "
                f"got {iteration}; a goal that used all its rounds needs a larger max_iterations",
                "iteration",
            )
        if max_judge_failures < 1:
            raise InvalidGoalError(
                f"max_judge_failures must be >= 1, got {max_judge_failures}", "max_judge_failures"
            )
        self._objective = request.objective
        self.judge_llm = judge_llm
        self._limits = request.limits
        self._verify_command = request.verify
        self.working_dir = working_dir
        self._verifier: Verifier = verifier or (
            lambda command, cwd: run_verify_command(command, cwd, timeout=verify_timeout)
        )
        self._max_judge_failures = max_judge_failures
        self._window = TranscriptWindow(transcript_chars)

        self._iteration = iteration
        self._agent_cost = 0.0
        self._judge_cost = 0.0
        self._clock = WorkClock(clock)
        self._judge_failures = 0
        self._verdict: GoalVerdict | None = None
        self._verify: VerifyResult | None = None
        self._last_round: GoalRound | None = None
        self._error: str | None = None
        self._reason: str | None = None
        self._round_open = False
        self._round_started_at = 0.0
        self._phase: GoalPhase | None = None
        self._trip = BudgetTrip()

    @classmethod
    def from_request(
        cls,
        request: GoalRequest,
        judge_llm: LLM,
        *,
        working_dir: str | None = None,
        verifier: Verifier | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> GoalController:
        """A controller for a validated `GoalRequest` (its `judge_llm` is not used here)."""
        return cls(
            request.objective,
            judge_llm,
            max_iterations=request.max_iterations,
            verify=request.verify,
            working_dir=working_dir,
            max_cost=request.max_cost,
            time_limit=request.time_limit,
            verifier=verifier,
            clock=clock,
        )

    # -- read-only state ------------------------------------------------------------------

    @property
    def objective(self) -> str:
        """What the agent must achieve."""
        return self._objective

    @property
    def iteration(self) -> int:
        """Rounds judged so far."""
        return self._iteration

    @property
    def limits(self) -> GoalLimits:
        """The round cap and the budgets."""
        return self._limits

    @property
    def max_iterations(self) -> int:
        """The round cap."""
        return self._limits.max_iterations

    @property
    def verify_command(self) -> str | None:
        """The shell command that must exit 0 for the goal to complete, if any."""
        return self._verify_command

    @property
    def max_cost(self) -> float | None:
        """The USD budget for agent plus judge, or None."""
        return self._limits.max_cost

    @property
    def time_limit(self) -> float | None:
        """The wall-clock budget in seconds, or None."""
        return self._limits.time_limit

    @property
    def agent_cost(self) -> float:
        """USD the agent spent, as reported by the driver."""
        return self._agent_cost

    @property
    def judge_cost(self) -> float:
        """USD the judge spent."""
        return self._judge_cost

    @property
    def cost(self) -> float:
        """Agent plus judge cost in USD."""
        return self._agent_cost + self._judge_cost

    @property
    def elapsed(self) -> float:
        """Seconds of work on this goal, across resumes."""
        return self._clock.elapsed

    @property
    def verdict(self) -> GoalVerdict | None:
        """The latest verdict."""
        return self._verdict

    @property
    def phase(self) -> GoalPhase | None:
        """What the goal is doing now (None before it starts and after it ends)."""
        return self._phase

    @property
    def last_round(self) -> GoalRound | None:
        """The latest judged round in brief."""
        return self._last_round

    # -- budgets while the agent runs -------------------------------------------------------

    def time_left(self) -> float | None:
        """Seconds left before the time limit, or None without one."""
        limit = self._limits.time_limit
        return None if limit is None else limit - self.elapsed

    def cost_left(self, pending_agent_cost: float = 0.0) -> float | None:
        """USD left in the budget after `pending_agent_cost` (not yet reported), or None."""
        if self._limits.max_cost is None:
            return None
        return self._limits.max_cost - self.cost - max(0.0, pending_agent_cost)

    def budget_exhausted(self, pending_agent_cost: float = 0.0) -> str | None:
        """ "cost budget" or "time limit" when that budget has run out, else None.

        `pending_agent_cost` is what the agent spent in the current run so far.
        """
        cost_left = self.cost_left(pending_agent_cost)
        if cost_left is not None and cost_left <= 0:
            return COST_BUDGET
        time_left = self.time_left()
        if time_left is not None and time_left <= 0:
            return TIME_LIMIT
        return None

    def check_budget(self, pending_agent_cost: float = 0.0) -> str | None:
        """Call as the agent works: the budget that ran out, the first time one does.

        A driver pauses the run when this returns a reason; that round is then judged as
        usual (and the goal capped), instead of the pause interrupting the goal.
        """
        reason = self.budget_exhausted(pending_agent_cost)
        return None if reason is None else self._trip.trip(reason)

    def time_up(self) -> str | None:
        """Call when a timer armed for `time_left()` fires: like `check_budget` for time."""
        return self._trip.trip(TIME_LIMIT)

    @property
    def budget_tripped(self) -> str | None:
        """The budget that paused the current run, if one did."""
        return self._trip.reason

    # -- the loop ---------------------------------------------------------------------------

    def start(self) -> str:
        """Begin the goal: the first message for the agent is the objective itself."""
        self._begin_session()
        return self._objective

    def resume_prompt(self) -> str:
        """Begin again after an interruption: a message telling the agent to carry on."""
        self._begin_session()
        return resume_prompt(
            self._objective,
            iteration=self._iteration,
            max_iterations=self.max_iterations,
            verdict=self._verdict,
            verify_command=self._verify_command,
        )

    def classify_run_end(self, end: RunEnd) -> GoalInterruption | None:
        """Whether the way a run ended interrupts the goal (None: judge the round).

        A failed run interrupts it, unless its code is in `ROUND_ENDING_ERRORS` (the step cap
        just ends a round). A paused conversation interrupts it unless a budget paused it
        (`check_budget`/`time_up`). Drivers also ask this, with the conversation's current
        status, before sending a follow-up: a pause that came while the round was being
        judged must stop the goal, not be undone by the next run.
        """
        if end.error is not None and end.code not in ROUND_ENDING_ERRORS:
            return GoalInterruption(
                reason=AGENT_ERROR, error=f"the agent's run failed: {end.error}"
            )
        if end.status == ConversationExecutionStatus.PAUSED and self._trip.reason is None:
            return GoalInterruption(reason=PAUSED)
        return None

    def awaits_approval(self, end: RunEnd) -> bool:
        """Whether the run stopped for a person to approve a tool call.

        Then the round is not over: nothing is judged, and the driver waits until the call is
        approved or rejected (the conversation leaves `waiting_for_confirmation`), runs the
        agent again without a message, and asks this again. The phase says so meanwhile.
        """
        waiting = (
            end.status == ConversationExecutionStatus.WAITING_FOR_CONFIRMATION and end.error is None
        )
        self._phase = "waiting_for_approval" if waiting else "agent"
        return waiting

    def enter_phase(self, phase: GoalPhase) -> None:
        """Note what the goal does next (a driver that runs the steps itself calls this)."""
        self._phase = phase

    def run_verify(self) -> VerifyResult | None:
        """Run the verify command through the verifier (a subprocess); None without one."""
        if self._verify_command is None:
            return None
        return safe_verify(self._verifier, self._verify_command, self.working_dir)

    def run_judge(
        self, events: Sequence[Event] | EventHistory, verify: VerifyResult | None = None
    ) -> JudgeAnswer:
        """Ask the judge about the round (an LLM call); never raises (see `JudgeAnswer`).

        Only the events added since the last call are rendered into the transcript.
        """
        transcript = self._window.update(events)
        return ask_judge(self.judge_llm, self._objective, transcript, verify)

    def on_run_finished(
        self,
        events: Sequence[Event] | EventHistory,
        *,
        agent_cost: float = 0.0,
        on_phase: PhaseCallback | None = None,
    ) -> GoalStep:
        """Check the round that just ended (verify, judge) and decide what happens next.

        `events` is the whole conversation history (a list or the conversation's event log).
        `agent_cost` is the USD the agent spent in this round (the metrics delta around the
        run), not a running total. `on_phase` is told before verify runs and before the judge
        is asked (e.g. to record a status that says so).
        """
        verify: VerifyResult | None = None
        if self._verify_command is not None:
            self._enter(on_phase, "verifying")
            verify = self.run_verify()
        self._enter(on_phase, "judging")
        answer = self.run_judge(events, verify)
        return self.record_round(
            answer.verdict,
            verify=verify,
            judge_error=answer.error,
            agent_cost=agent_cost,
            judge_cost=answer.cost,
        )

    def record_round(
        self,
        verdict: GoalVerdict,
        *,
        verify: VerifyResult | None = None,
        judge_error: str | None = None,
        agent_cost: float = 0.0,
        judge_cost: float = 0.0,
    ) -> GoalStep:
        """The pure decision for one round, given what the judge and verify returned.

        With a verify command set, a round without its `verify` result cannot complete the
        goal: a driver that skipped the command has not proven anything. Completion wins over
        a limit reached in the same round.
        """
        self._round_open = False
        self._iteration += 1
        agent_cost, judge_cost = max(0.0, agent_cost), max(0.0, judge_cost)
        self._agent_cost += agent_cost
        self._judge_cost += judge_cost
        self._judge_failures = self._judge_failures + 1 if judge_error else 0
        self._error = judge_error
        verdict = gate_on_verify(verdict, verify)
        if verify is None and self._verify_command is not None and verdict.complete:
            verdict = verdict.not_complete_because(
                f"`{self._verify_command}` must exit 0 (it was not run this round)"
            )
        self._verdict, self._verify = verdict, verify
        self._last_round = GoalRound(
            iteration=self._iteration,
            score=verdict.score,
            complete=verdict.complete,
            missing=verdict.missing,
            verify_exit_code=None if verify is None else verify.exit_code,
            agent_cost=agent_cost,
            judge_cost=judge_cost,
            seconds=max(0.0, self.elapsed - self._round_started_at),
            judge_error=judge_error,
        )

        if verdict.complete:
            return self._done("complete")
        cap = self._cap_reason()
        if cap is not None:
            return self._done("capped", reason=cap, error=judge_error)
        if self._judge_failures >= self._max_judge_failures:
            reason = f"the judge failed {self._judge_failures} times in a row"
            return self._done("interrupted", reason=reason, error=f"{reason}: {judge_error}")
        self._begin_round()
        followup = followup_prompt(
            self._objective,
            verdict,
            iteration=self._iteration,
            max_iterations=self.max_iterations,
            verify=verify,
            judge_error=judge_error,
        )
        return GoalContinue(followup=followup, verdict=verdict)

    def interrupted(
        self, error: str | None, *, agent_cost: float = 0.0, reason: str | None = None
    ) -> GoalOutcome:
        """The outcome of a goal cut short (agent failure, stop, pause, crash).

        `error` is None for an interruption that is not a failure (a stop, a pause, a user
        message): the status then shows only the `reason`. `iterations` counts the round
        that was cut, if one was under way.
        """
        self._agent_cost += max(0.0, agent_cost)
        self._error = error
        self._reason = reason or "interrupted"
        iterations = self._iteration + (1 if self._round_open else 0)
        self._round_open = False
        self._stop_clock()
        return self._outcome("interrupted", reason=self._reason, error=error, iterations=iterations)

    def interrupt(self, interruption: GoalInterruption, *, agent_cost: float = 0.0) -> GoalOutcome:
        """`interrupted(...)` for a `GoalInterruption` from `classify_run_end`."""
        return self.interrupted(
            interruption.error, agent_cost=agent_cost, reason=interruption.reason
        )

    # -- snapshots ----------------------------------------------------------------------------

    def status(
        self,
        *,
        active: bool,
        status: GoalStatusName,
        error: str | None = None,
        reason: str | None = None,
    ) -> GoalStatus:
        """A snapshot for the UI chip (and for resuming); error/reason default to the last."""
        limits = self._limits
        return GoalStatus(
            active=active,
            status=status,
            iteration=self._iteration,
            max_iterations=limits.max_iterations,
            objective=self._objective,
            phase=self._phase if active else None,
            verdict=self._verdict,
            verify=self._verify,
            last_round=self._last_round,
            error=error if error is not None else self._error,
            cost=self.cost,
            judge_cost=self._judge_cost,
            reason=reason if reason is not None else self._reason,
            verify_command=self._verify_command,
            max_cost=limits.max_cost,
            time_limit=limits.time_limit,
            elapsed=self.elapsed,
            judge_failures=self._judge_failures,
        )

    def running_status(self) -> GoalStatus:
        """The status of the goal while a driver works on it (`running`, active)."""
        return self.status(active=True, status="running")

    def final_status(self, outcome: GoalOutcome) -> GoalStatus:
        """The inactive status recording how the goal ended."""
        return self.status(
            active=False, status=outcome.status, error=outcome.error, reason=outcome.reason
        )

    @classmethod
    def from_status(
        cls,
        status: GoalStatus,
        judge_llm: LLM,
        *,
        working_dir: str | None = None,
        verifier: Verifier | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> GoalController:
        """Rebuild a controller from a persisted status: same objective, rounds, caps, costs."""
        controller = cls(
            status.objective,
            judge_llm,
            max_iterations=status.max_iterations,
            verify=status.verify_command,
            working_dir=working_dir,
            max_cost=status.max_cost,
            time_limit=status.time_limit,
            iteration=status.iteration,
            verifier=verifier,
            clock=clock,
        )
        controller._agent_cost = status.agent_cost
        controller._judge_cost = status.judge_cost
        controller._clock = WorkClock(clock, status.elapsed)
        controller._judge_failures = status.judge_failures
        controller._verdict = status.verdict
        controller._verify = status.verify
        controller._last_round = status.last_round
        return controller

    # -- internals ----------------------------------------------------------------------------

    def _begin_session(self) -> None:
        # A (re)started driver starts a new wall-clock session; time while stopped is free.
        self._clock.restart()
        self._error = None
        self._reason = None
        self._begin_round()

    def _begin_round(self) -> None:
        self._round_open = True
        self._round_started_at = self.elapsed
        self._phase = "agent"
        self._trip.reset()

    def _enter(self, on_phase: PhaseCallback | None, phase: GoalPhase) -> None:
        self._phase = phase
        if on_phase is not None:
            on_phase(phase)

    def _stop_clock(self) -> None:
        self._clock.stop()
        self._phase = None

    def _cap_reason(self) -> str | None:
        elapsed = self.elapsed
        limit = self._limits.time_limit
        if self._trip.reason == TIME_LIMIT and limit is not None:
            # The driver's timer said time is up: a clock read a hair early must not undo it.
            elapsed = max(elapsed, limit)
        return self._limits.exceeded(
            iterations=self._iteration,
            agent_cost=self._agent_cost,
            judge_cost=self._judge_cost,
            elapsed=elapsed,
        )

    def _done(
        self, status: GoalOutcomeStatus, *, reason: str | None = None, error: str | None = None
    ) -> GoalDone:
        self._reason = reason
        self._error = error
        self._stop_clock()
        return GoalDone(self._outcome(status, reason=reason, error=error))

    def _outcome(
        self,
        status: GoalOutcomeStatus,
        *,
        reason: str | None,
        error: str | None,
        iterations: int | None = None,
    ) -> GoalOutcome:
        return GoalOutcome(
            status=status,
            iterations=max(1, self._iteration if iterations is None else iterations),
            verdict=self._verdict,
            reason=reason,
            error=error,
            agent_cost=self._agent_cost,
            judge_cost=self._judge_cost,
            verify=self._verify,
        )
