"""`GoalController`: the goal loop as a step machine holding every rule, doing no I/O.

A driver begins the goal and then interprets steps (see `goal/steps.py`):

    controller.begin(conversation_status=...)            # or begin(resume=True, ...)
    while not isinstance(step := controller.next(), Finish):
        controller.advance(perform(step))                # the driver's I/O, nothing else

The rules are all here: what the agent is sent, that a goal started on a conversation waiting
for approval waits for that approval first, how a run's end is read (a failure interrupts,
the step cap only ends a round, a pause interrupts unless a limit made the driver pause), the
limits a run is watched for and what reaching one means, a pause in any phase, a refused
message, verify gating, judge failures, caps, and what an interruption records. Time is read
only through the injected `clock`, so a durable workflow replays the same decisions.

`start()` and `on_run_finished(events)` are the reference SDK's one-call API on top of the
same machine: they run verify and the judge in this process.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections import deque
from collections.abc import Callable, Sequence

from openhands.sdk.contracts import EventHistory
from openhands.sdk.conversation.goal.clock import WorkClock
from openhands.sdk.conversation.goal.errors import GoalStepError, InvalidGoalError
from openhands.sdk.conversation.goal.judge import GoalJudge, gate_on_verify
from openhands.sdk.conversation.goal.models import (
    AGENT_ERROR,
    BLOCKED,
    PAUSED,
    GoalContinue,
    GoalDone,
    GoalOutcome,
    GoalOutcomeStatus,
    GoalPhase,
    GoalRound,
    GoalStatus,
    GoalStep,
    GoalVerdict,
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
from openhands.sdk.conversation.goal.snapshot import (
    MAX_JUDGE_FAILURES,
    GoalRoundState,
    GoalSnapshot,
)
from openhands.sdk.conversation.goal.steps import (
    ANSWERS,
    ApprovalDecided,
    AskJudge,
    AwaitApproval,
    DriverStep,
    Finish,
    Judged,
    MessageRefused,
    RecordStatus,
    RunAgent,
    RunEnded,
    RunVerify,
    StatusRecorded,
    StepResult,
    Stopped,
    Verified,
)
from openhands.sdk.conversation.goal.transcript import DEFAULT_TRANSCRIPT_CHARS
from openhands.sdk.conversation.goal.verify import Verifier, perform_verify
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.event.base import Event
from openhands.sdk.llm.llm import LLM

Status = ConversationExecutionStatus

ROUND_ENDING_ERRORS = frozenset({"MaxIterationsReached"})
"""`ConversationRunError` codes that just end a round (it is judged); others interrupt."""

PhaseCallback = Callable[[GoalPhase], None]
"""Called with the new phase before verify runs and before the judge is asked."""

__all__ = ["MAX_JUDGE_FAILURES", "ROUND_ENDING_ERRORS", "GoalController", "PhaseCallback"]


class GoalController:
    """Decides a goal loop step by step; its whole state is a `GoalSnapshot`.

    Build one with `from_request(request)` (a validated `GoalRequest`), `from_status(status)`
    (to resume a recorded goal) or `restore(snapshot)`; the constructor takes the reference
    SDK's arguments. `judge_llm` and `verifier` are used only by `on_run_finished`, which runs
    the verify and judge steps itself; drivers perform them. Invalid options raise
    `InvalidGoalError` (a ValueError) naming the field.
    """

    def __init__(
        self,
        objective: str | GoalRequest,
        judge_llm: LLM | None = None,
        *,
        max_iterations: int | None = None,
        working_dir: str | None = None,
        verifier: Verifier | None = None,
        iteration: int = 0,
        transcript_chars: int = DEFAULT_TRANSCRIPT_CHARS,
        max_judge_failures: int = MAX_JUDGE_FAILURES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(objective, GoalRequest):
            if max_iterations is not None:
                raise InvalidGoalError(
                    "max_iterations comes from the GoalRequest; do not pass it again",
                    "max_iterations",
                )
            request = objective
        else:
            cap = DEFAULT_MAX_ITERATIONS if max_iterations is None else max_iterations
            request = GoalRequest.checked(objective=objective, max_iterations=cap)
        if not 0 <= iteration < request.max_iterations:
            raise InvalidGoalError(
                f"iteration must be in 0..{request.max_iterations - 1} (rounds already done), "
                f"got {iteration}; a goal that used all its rounds needs a larger max_iterations",
                "iteration",
            )
        try:
            snapshot = GoalSnapshot(
                objective=request.objective,
                verify_command=request.verify,
                limits=request.limits,
                working_dir=working_dir,
                transcript_chars=transcript_chars,
                max_judge_failures=max_judge_failures,
                iteration=iteration,
            )
        except ValueError as exc:
            raise InvalidGoalError(str(exc).splitlines()[-1].strip()) from None
        self.judge_llm = judge_llm
        self._verifier = verifier
        self._judge: GoalJudge | None = None
        self._clock_source = clock
        self._load(snapshot)

    # -- building -----------------------------------------------------------------------------

    @classmethod
    def from_request(
        cls,
        request: GoalRequest,
        judge_llm: LLM | None = None,
        *,
        working_dir: str | None = None,
        verifier: Verifier | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> GoalController:
        """A controller for a validated `GoalRequest` (its own `judge_llm` is not used here)."""
        return cls(request, judge_llm, working_dir=working_dir, verifier=verifier, clock=clock)

    @classmethod
    def from_status(
        cls,
        status: GoalStatus,
        judge_llm: LLM | None = None,
        *,
        working_dir: str | None = None,
        verifier: Verifier | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> GoalController:
        """Rebuild a recorded goal to resume it: same objective, rounds, limits, costs."""
        request = GoalRequest.checked(
            objective=status.objective,
            verify=status.verify_command,
            **status.limits.model_dump(),
        )
        controller = cls(
            request,
            judge_llm,
            working_dir=working_dir,
            verifier=verifier,
            iteration=status.iteration,
            clock=clock,
        )
        s = controller._s
        s.agent_cost, s.judge_cost = status.agent_cost, status.judge_cost
        s.elapsed, s.judge_failures = status.elapsed, status.judge_failures
        s.verdict, s.verify, s.last_round = status.verdict, status.verify, status.last_round
        controller._clock = WorkClock(clock, status.elapsed, running=False)
        return controller

    @classmethod
    def restore(
        cls,
        snapshot: GoalSnapshot,
        judge_llm: LLM | None = None,
        *,
        verifier: Verifier | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> GoalController:
        """Continue the controller `snapshot()` was taken of (time counts on from there)."""
        controller = cls.__new__(cls)
        controller.judge_llm = judge_llm
        controller._verifier = verifier
        controller._judge = None
        controller._clock_source = clock
        controller._load(copy.deepcopy(snapshot))
        return controller

    def snapshot(self) -> GoalSnapshot:
        """The whole state, for `restore` (by another driver, or after a hand-over)."""
        return dataclasses.replace(
            copy.deepcopy(self._s), elapsed=self._clock.elapsed, queue=list(self._queue)
        )

    def _load(self, snapshot: GoalSnapshot) -> None:
        self._plain_ask: AskJudge | None = None
        self._s = snapshot
        self._queue: deque[DriverStep] = deque(snapshot.queue)
        running = snapshot.began and snapshot.outcome is None
        self._clock = WorkClock(self._clock_source, snapshot.elapsed, running=running)

    # -- read-only state ----------------------------------------------------------------------

    @property
    def objective(self) -> str:
        """What the agent must achieve."""
        return self._s.objective

    @property
    def iteration(self) -> int:
        """Rounds judged so far."""
        return self._s.iteration

    @property
    def limits(self) -> GoalLimits:
        """The round cap and the budgets."""
        return self._s.limits

    @property
    def max_iterations(self) -> int:
        """The round cap."""
        return self._s.limits.max_iterations

    @property
    def verify_command(self) -> str | None:
        """The shell command that must exit 0 for the goal to complete, if any."""
        return self._s.verify_command

    @property
    def working_dir(self) -> str | None:
        """Where the verify command runs."""
        return self._s.working_dir

    @property
    def agent_cost(self) -> float:
        """USD the agent spent (the round under way included)."""
        current = self._s.round.agent_cost if self._s.round is not None else 0.0
        return self._s.agent_cost + current

    @property
    def judge_cost(self) -> float:
        """USD the judge spent."""
        return self._s.judge_cost

    @property
    def cost(self) -> float:
        """Agent plus judge cost in USD."""
        return self.agent_cost + self._s.judge_cost

    @property
    def elapsed(self) -> float:
        """Seconds of work on this goal, across resumes."""
        return self._clock.elapsed

    @property
    def verdict(self) -> GoalVerdict | None:
        """The latest verdict."""
        return self._s.verdict

    @property
    def phase(self) -> GoalPhase | None:
        """What the goal is doing now (None before it begins and after it ends)."""
        return self._s.phase

    @property
    def last_round(self) -> GoalRound | None:
        """The latest judged round in brief."""
        return self._s.last_round

    @property
    def outcome(self) -> GoalOutcome | None:
        """How the goal ended, once it did."""
        return self._s.outcome

    def status(self) -> GoalStatus:
        """The goal as the UI chip shows it now (and as it is recorded, to resume it)."""
        s, outcome = self._s, self._s.outcome
        active = s.began and outcome is None
        fields = {
            "active": active,
            "status": "running" if outcome is None else outcome.status,
            "iteration": s.iteration,
            "objective": s.objective,
            "phase": s.phase if active else None,
            "verdict": s.verdict,
            "verify": s.verify,
            "last_round": s.last_round,
            "error": s.error,
            "cost": self.cost,
            "judge_cost": s.judge_cost,
            "reason": s.reason,
            "verify_command": s.verify_command,
            "limits": s.limits,
            "elapsed": self.elapsed,
            "judge_failures": s.judge_failures,
        }
        return GoalStatus(**fields)

    # -- the machine --------------------------------------------------------------------------

    def begin(self, *, resume: bool = False, conversation_status: Status | None = None) -> None:
        """A driver starts working on the goal; `next()` then gives its first step.

        `resume` sends the resume prompt instead of the objective. `conversation_status` is
        the conversation's status now: one `waiting_for_confirmation` makes the first step
        the wait for that approval (the message goes after it), so starting a goal never
        approves a pending tool call.
        """
        if self._s.began:
            raise GoalStepError("This goal has already begun; a controller drives one session.")
        self._s.began = True
        self._clock.restart()
        self._s.error = self._s.reason = None
        message = self._resume_prompt() if resume else self._s.objective
        self._open_round(message)
        if conversation_status == Status.WAITING_FOR_CONFIRMATION:
            self._await_approval()
        else:
            self._s.phase = "agent"
            self._record()
            self._run()

    def next(self) -> DriverStep:
        """The step to perform now (the same one until `advance` is given its result)."""
        if self._queue:
            return self._queue[0]
        if self._s.outcome is not None:
            return Finish(outcome=self._s.outcome)
        raise GoalStepError("The goal has not begun: call begin() first.")

    def advance(self, result: StepResult) -> None:
        """Take the result of the step `next()` gave, and decide what comes next.

        A `Stopped` result ends the goal `interrupted` whatever the step; once the goal has
        ended it only says the final status could not be recorded (the outcome stands). Any
        other result must answer the pending step (see `steps.ANSWERS`), else `GoalStepError`.
        """
        if isinstance(result, Stopped):
            if self._s.outcome is None:
                self._queue.clear()
                self._interrupt(result.reason, result.error, agent_cost=result.agent_cost)
            elif self._queue:
                self._queue.popleft()
            return
        step = self.next()
        expected = ANSWERS.get(type(step), ())
        if not isinstance(result, expected):
            raise GoalStepError(
                f"A {type(result).__name__} does not answer the pending "
                f"{type(step).__name__} step; perform controller.next() and pass its result."
            )
        self._queue.popleft()
        if isinstance(result, StatusRecorded):
            return
        if isinstance(result, RunEnded):
            self._run_ended(result)
        elif isinstance(result, MessageRefused):
            self._interrupt(BLOCKED, result.error)
        elif isinstance(result, ApprovalDecided):
            self._approval_decided(result)
        elif isinstance(result, Verified):
            self._verified(result)
        elif isinstance(result, Judged):
            self._judged(result)

    # -- rules --------------------------------------------------------------------------------

    def _run_ended(self, result: RunEnded) -> None:
        current = self._current_round()
        current.agent_cost += result.agent_cost
        current.limit = current.limit or result.limit
        if result.error is not None and result.code not in ROUND_ENDING_ERRORS:
            self._interrupt(AGENT_ERROR, f"the agent's run failed: {result.error}")
        elif current.limit is not None:
            self._check_round()  # the driver paused the run for a limit: judge this last round
        elif result.status == Status.WAITING_FOR_CONFIRMATION:
            self._await_approval()
        elif result.status == Status.PAUSED:
            self._interrupt(PAUSED)
        else:
            self._check_round()

    def _approval_decided(self, result: ApprovalDecided) -> None:
        if result.status == Status.PAUSED:
            self._interrupt(PAUSED)
            return
        self._s.phase = "agent"
        self._record()
        self._run()

    def _verified(self, result: Verified) -> None:
        current = self._current_round()
        current.verify = result.result
        if self._paused_by_someone(result.conversation_status, current.limit):
            self._interrupt(PAUSED)
            return
        self._s.phase = "judging"
        self._record()
        self._queue.append(self._ask_judge(result.result))

    def _judged(self, result: Judged) -> None:
        s, current = self._s, self._current_round()
        s.iteration += 1
        s.agent_cost += current.agent_cost
        s.judge_cost += max(0.0, result.cost)
        s.judge_failures = s.judge_failures + 1 if result.error else 0
        s.error = result.error
        verify = current.verify
        verdict = gate_on_verify(result.verdict, verify)
        if verify is None and s.verify_command is not None and verdict.complete:
            verdict = verdict.not_complete_because(
                f"`{s.verify_command}` must exit 0 (it was not run this round)"
            )
        s.verdict, s.verify = verdict, verify
        s.last_round = GoalRound(
            iteration=s.iteration,
            score=verdict.score,
            complete=verdict.complete,
            missing=verdict.missing,
            verify_exit_code=None if verify is None else verify.exit_code,
            agent_cost=current.agent_cost,
            judge_cost=max(0.0, result.cost),
            seconds=max(0.0, self.elapsed - current.started_at),
            judge_error=result.error,
        )
        limit, s.round = current.limit, None
        if verdict.complete:  # work proven done is done, whatever limit was reached with it
            self._end("complete")
            return
        cap = self._cap_reason(limit)
        if cap is not None:
            self._end("capped", reason=cap, error=result.error)
            return
        if s.judge_failures >= s.max_judge_failures:
            reason = f"the judge failed {s.judge_failures} times in a row"
            self._end("interrupted", reason=reason, error=f"{reason}: {result.error}")
            return
        if self._paused_by_someone(result.conversation_status, limit):
            self._interrupt(PAUSED)
            return
        followup = followup_prompt(
            s.objective,
            verdict,
            iteration=s.iteration,
            max_iterations=s.limits.max_iterations,
            verify=verify,
            judge_error=result.error,
        )
        self._open_round(followup)
        self._s.phase = "agent"
        self._record()
        self._run()

    @staticmethod
    def _paused_by_someone(status: Status | None, limit: str | None) -> bool:
        """A pause nobody explains: not the driver's own, made for a limit this round."""
        return status == Status.PAUSED and limit is None

    def _cap_reason(self, limit: str | None) -> str | None:
        s, limits = self._s, self._s.limits
        elapsed, agent_cost = self.elapsed, s.agent_cost
        # The driver saw a limit reached: a clock read a hair early, or a sum rounded a hair
        # low, must not undo it.
        if limit == TIME_LIMIT and limits.time_limit is not None:
            elapsed = max(elapsed, limits.time_limit)
        if limit == COST_BUDGET and limits.max_cost is not None:
            agent_cost = max(agent_cost, limits.max_cost - s.judge_cost)
        return limits.exceeded(
            iterations=s.iteration,
            agent_cost=agent_cost,
            judge_cost=s.judge_cost,
            elapsed=elapsed,
        )

    # -- steps --------------------------------------------------------------------------------

    def _open_round(self, message: str) -> None:
        self._s.round = GoalRoundState(started_at=self.elapsed, message=message)

    def _current_round(self) -> GoalRoundState:
        if self._s.round is None:  # a result for a round nobody opened: count it as one
            self._s.round = GoalRoundState(started_at=self.elapsed)
        return self._s.round

    def _record(self) -> None:
        self._queue.append(RecordStatus(status=self.status()))

    def _await_approval(self) -> None:
        self._s.phase = "waiting_for_approval"
        self._record()
        self._queue.append(AwaitApproval())

    def _run(self) -> None:
        """Run the agent with the round's message, unless a limit is already used up: then the
        round is checked at once (its work so far is judged) and the goal caps."""
        s, current = self._s, self._current_round()
        time_left = None if s.limits.time_limit is None else s.limits.time_limit - self.elapsed
        cost_left = None if s.limits.max_cost is None else s.limits.max_cost - self.cost
        if time_left is not None and time_left <= 0:
            current.limit = TIME_LIMIT
        elif cost_left is not None and cost_left <= 0:
            current.limit = COST_BUDGET
        if current.limit is not None:
            self._check_round()
            return
        message, current.message = current.message, None
        self._queue.append(RunAgent(message=message, time_left=time_left, cost_left=cost_left))

    def _check_round(self) -> None:
        s = self._s
        if s.verify_command is not None:
            s.phase = "verifying"
            self._record()
            self._queue.append(
                RunVerify(
                    command=s.verify_command,
                    working_dir=s.working_dir,
                    timeout=s.verify_timeout,
                    tail_chars=s.verify_tail_chars,
                )
            )
            return
        s.phase = "judging"
        self._record()
        self._queue.append(self._ask_judge(None))

    def _ask_judge(self, verify: VerifyResult | None) -> AskJudge:
        if verify is None and self._plain_ask is not None:
            return self._plain_ask  # the same question every round (steps are frozen)
        step = AskJudge(
            objective=self._s.objective, verify=verify, transcript_chars=self._s.transcript_chars
        )
        if verify is None:
            self._plain_ask = step
        return step

    # -- endings ------------------------------------------------------------------------------

    def _interrupt(self, reason: str, error: str | None = None, *, agent_cost: float = 0.0) -> None:
        """End `interrupted`; the round under way (if any) counts as worked on."""
        s = self._s
        current, s.round = s.round, None
        if current is not None:
            s.agent_cost += current.agent_cost
        s.agent_cost += max(0.0, agent_cost)
        iterations = s.iteration + (1 if current is not None else 0)
        self._finish("interrupted", reason=reason, error=error, iterations=iterations)

    def _end(
        self, status: GoalOutcomeStatus, *, reason: str | None = None, error: str | None = None
    ) -> None:
        self._finish(status, reason=reason, error=error, iterations=self._s.iteration)

    def _finish(
        self, status: GoalOutcomeStatus, *, reason: str | None, error: str | None, iterations: int
    ) -> None:
        s = self._s
        s.reason, s.error = reason, error
        self._clock.stop()
        s.phase = None
        s.outcome = GoalOutcome(
            status=status,
            iterations=max(1, iterations),
            verdict=s.verdict,
            reason=reason,
            error=error,
            agent_cost=s.agent_cost,
            judge_cost=s.judge_cost,
            verify=s.verify,
        )
        self._record()

    def _resume_prompt(self) -> str:
        s = self._s
        return resume_prompt(
            s.objective,
            iteration=s.iteration,
            max_iterations=s.limits.max_iterations,
            verdict=s.verdict,
            verify_command=s.verify_command,
        )

    # -- the reference SDK's one-call API ------------------------------------------------------

    def start(self) -> str:
        """Begin the goal; the first message for the agent (the objective itself)."""
        self.begin()
        self._take_records(None)
        return self._s.objective

    def on_run_finished(
        self,
        events: Sequence[Event] | EventHistory,
        *,
        agent_cost: float = 0.0,
        on_phase: PhaseCallback | None = None,
    ) -> GoalStep:
        """The agent's run ended (`finished`): verify and judge the round here, then decide.

        `events` is the whole conversation; `agent_cost` the USD the agent spent in this run
        (a delta, not a running total). `on_phase` is told before verify runs and before the
        judge is asked. Returns `GoalContinue(followup)` or `GoalDone(outcome)`.
        """
        if not self._s.began:
            self.start()
        self._take_records(None)
        if isinstance(self.next(), RunAgent):
            self.advance(RunEnded(status=Status.FINISHED, agent_cost=agent_cost))
        while True:
            step = self.next()
            if isinstance(step, RunAgent):
                return GoalContinue(
                    followup=step.message or "", verdict=self._s.verdict or GoalVerdict()
                )
            if isinstance(step, Finish):
                return GoalDone(outcome=step.outcome)
            if isinstance(step, RecordStatus):
                self._take_records(on_phase)
            elif isinstance(step, RunVerify):
                self.advance(Verified(result=perform_verify(step, self._verifier)))
            elif isinstance(step, AskJudge):
                self.advance(Judged.of(self._local_judge().answer(step, events)))
            else:
                raise GoalStepError(f"on_run_finished cannot perform a {type(step).__name__} step")

    def _take_records(self, on_phase: PhaseCallback | None) -> None:
        """Skip the status records (nothing is recorded here), telling `on_phase` of checks."""
        while isinstance(step := self.next(), RecordStatus):
            phase = step.status.phase
            self.advance(StatusRecorded())
            if on_phase is not None and phase in ("verifying", "judging"):
                on_phase(phase)

    def _local_judge(self) -> GoalJudge:
        if self.judge_llm is None:
            raise GoalStepError("on_run_finished needs a judge_llm: pass one to GoalController.")
        if self._judge is None:
            self._judge = GoalJudge(self.judge_llm)
        return self._judge
