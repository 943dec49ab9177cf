"""`GoalController`: the goal loop as a step machine holding every rule, doing no I/O.

A driver begins the goal and then interprets steps (see `goal/steps.py`):

    controller.begin(conversation_status=...)            # or begin(resume=True, ...)
    while not isinstance(step := controller.next(), Finish):
        controller.advance(perform(step))                # the driver's I/O, nothing else

This module is what drivers and users hold: building a controller (from options, from a
recorded status, from a snapshot), reading the goal's state, and the reference SDK's one-call
API. The rules themselves are in `goal.machine` (`GoalMachine`, which the controller owns);
the budget arithmetic in `goal.budget`. Time is read only through the injected `clock`, so a
durable workflow replays the same decisions.

`start()` and `on_run_finished(events)` are the reference SDK's one-call API on top of the
same machine: they run verify and the judge in this process.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence

from openhands.sdk.contracts import EventHistory
from openhands.sdk.conversation.goal.clock import WorkClock
from openhands.sdk.conversation.goal.errors import GoalStepError, InvalidGoalError
from openhands.sdk.conversation.goal.judge import GoalJudge
from openhands.sdk.conversation.goal.machine import (
    GOAL_RESUMED_LABEL,
    GOAL_START_LABEL,
    ROUND_ENDING_ERRORS,
    GoalMachine,
)
from openhands.sdk.conversation.goal.models import (
    GoalContinue,
    GoalDone,
    GoalOutcome,
    GoalPhase,
    GoalRound,
    GoalStatus,
    GoalStep,
    GoalVerdict,
)
from openhands.sdk.conversation.goal.options import (
    DEFAULT_MAX_ITERATIONS,
    GoalLimits,
    GoalRequest,
)
from openhands.sdk.conversation.goal.snapshot import MAX_JUDGE_FAILURES, GoalSnapshot
from openhands.sdk.conversation.goal.steps import (
    AskJudge,
    CheckpointTaken,
    DriverStep,
    Finish,
    Judged,
    RecordStatus,
    RunAgent,
    RunEnded,
    RunVerify,
    StatusRecorded,
    StepResult,
    TakeCheckpoint,
    Verified,
)
from openhands.sdk.conversation.goal.transcript import DEFAULT_TRANSCRIPT_CHARS
from openhands.sdk.conversation.goal.verify import Verifier, perform_verify
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.event.base import Event
from openhands.sdk.llm.llm import LLM

Status = ConversationExecutionStatus

PhaseCallback = Callable[[GoalPhase], None]
"""Called with the new phase before verify runs and before the judge is asked."""

__all__ = [
    "GOAL_RESUMED_LABEL",
    "GOAL_START_LABEL",
    "MAX_JUDGE_FAILURES",
    "ROUND_ENDING_ERRORS",
    "GoalController",
    "PhaseCallback",
]


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
        limits: GoalLimits | None = None,
    ) -> GoalController:
        """Rebuild a recorded goal to resume it: same objective, rounds, costs, and its limits
        (or `limits`: a capped goal continued with new ones, see `goal.resuming`)."""
        request = GoalRequest.checked(
            objective=status.objective,
            verify=status.verify_command,
            **(limits or status.limits).model_dump(),
        )
        controller = cls(
            request,
            judge_llm,
            working_dir=working_dir,
            verifier=verifier,
            iteration=status.iteration,
            clock=clock,
        )
        s = controller._m.s
        s.agent_cost, s.judge_cost = status.agent_cost, status.judge_cost
        s.elapsed, s.judge_failures = status.elapsed, status.judge_failures
        s.verdict, s.verify, s.last_round = status.verdict, status.verify, status.last_round
        controller._m.clock = WorkClock(clock, status.elapsed, running=False)
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
        return self._m.snapshot()

    def _load(self, snapshot: GoalSnapshot) -> None:
        self._m = GoalMachine(snapshot, self._clock_source)

    # -- read-only state ----------------------------------------------------------------------

    @property
    def objective(self) -> str:
        """What the agent must achieve."""
        return self._m.s.objective

    @property
    def iteration(self) -> int:
        """Rounds judged so far."""
        return self._m.s.iteration

    @property
    def limits(self) -> GoalLimits:
        """The round cap and the budgets."""
        return self._m.s.limits

    @property
    def max_iterations(self) -> int:
        """The round cap."""
        return self._m.s.limits.max_iterations

    @property
    def verify_command(self) -> str | None:
        """The shell command that must exit 0 for the goal to complete, if any."""
        return self._m.s.verify_command

    @property
    def working_dir(self) -> str | None:
        """Where the verify command runs."""
        return self._m.s.working_dir

    @property
    def agent_cost(self) -> float:
        """USD the agent spent (the round under way included)."""
        return self._m.agent_cost

    @property
    def judge_cost(self) -> float:
        """USD the judge spent."""
        return self._m.s.judge_cost

    @property
    def cost(self) -> float:
        """Agent plus judge cost in USD."""
        return self._m.cost

    @property
    def elapsed(self) -> float:
        """Seconds of work on this goal, across resumes."""
        return self._m.elapsed

    @property
    def verdict(self) -> GoalVerdict | None:
        """The latest verdict."""
        return self._m.s.verdict

    @property
    def phase(self) -> GoalPhase | None:
        """What the goal is doing now (None before it begins and after it ends)."""
        return self._m.s.phase

    @property
    def last_round(self) -> GoalRound | None:
        """The latest judged round in brief."""
        return self._m.s.last_round

    @property
    def outcome(self) -> GoalOutcome | None:
        """How the goal ended, once it did."""
        return self._m.s.outcome

    def status(self) -> GoalStatus:
        """The goal as the UI chip shows it now (and as it is recorded, to resume it)."""
        return self._m.status()

    # -- the machine --------------------------------------------------------------------------

    def begin(
        self,
        *,
        resume: bool = False,
        conversation_status: Status | None = None,
        rewound_to: str | None = None,
    ) -> None:
        """A driver starts working on the goal; `next()` then gives its first step.

        `resume` sends the resume prompt instead of the objective. `conversation_status` is
        the conversation's status now: one `waiting_for_confirmation` makes the first step
        the wait for that approval (the message goes after it), so starting a goal never
        approves a pending tool call. `rewound_to` (a resume only) is the label of the snapshot
        the workspace was rewound to since the goal stopped: the resume prompt says so.
        """
        self._m.begin(resume=resume, conversation_status=conversation_status, rewound_to=rewound_to)

    def next(self) -> DriverStep:
        """The step to perform now (the same one until `advance` is given its result)."""
        return self._m.next()

    def advance(self, result: StepResult) -> None:
        """Take the result of the step `next()` gave, and decide what comes next.

        A `Stopped` result ends the goal `interrupted` whatever the step; once the goal has
        ended it only says the final status could not be recorded (the outcome stands). Any
        other result must answer the pending step (see `steps.ANSWERS`), else `GoalStepError`.
        """
        self._m.advance(result)

    # -- the reference SDK's one-call API ------------------------------------------------------

    def start(self) -> str:
        """Begin the goal; the first message for the agent (the objective itself)."""
        self.begin()
        self._take_records(None)
        return self._m.s.objective

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
        if not self._m.s.began:
            self.start()
        self._take_records(None)
        if isinstance(self.next(), RunAgent):
            self.advance(RunEnded(status=Status.FINISHED, agent_cost=agent_cost))
        while True:
            step = self.next()
            if isinstance(step, RunAgent):
                return GoalContinue(
                    followup=step.message or "", verdict=self._m.s.verdict or GoalVerdict()
                )
            if isinstance(step, Finish):
                return GoalDone(outcome=step.outcome)
            if isinstance(step, RecordStatus | TakeCheckpoint):
                self._take_records(on_phase)
            elif isinstance(step, RunVerify):
                self.advance(Verified(result=perform_verify(step, self._verifier)))
            elif isinstance(step, AskJudge):
                self.advance(Judged.of(self._local_judge().answer(step, events)))
            else:
                raise GoalStepError(f"on_run_finished cannot perform a {type(step).__name__} step")

    def _take_records(self, on_phase: PhaseCallback | None) -> None:
        """Skip the status records and snapshots (this API has no conversation to record in
        or workspace to snapshot), telling `on_phase` of checks."""
        while isinstance(step := self.next(), RecordStatus | TakeCheckpoint):
            if isinstance(step, TakeCheckpoint):
                self.advance(CheckpointTaken(error="no conversation to snapshot"))
                continue
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
