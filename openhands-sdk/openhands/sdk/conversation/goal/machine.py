"""`GoalMachine`: the goal loop's state and every rule that changes it, doing no I/O.

`GoalController` owns one and is what drivers and users hold; the machine is the part that
decides. It keeps the goal's whole state (a `GoalSnapshot`), the queue of steps a driver
must perform, and the work clock, and turns each step's result into the next steps: what
the agent is sent, that a goal started on a conversation waiting for approval waits for
that approval first, how a run's end is read (a failure interrupts, the step cap only ends a
round, a pause interrupts unless a limit made the driver pause), verify gating, judge
failures, caps (see `goal.budget`), and what an interruption records.
"""

from __future__ import annotations

import copy
import dataclasses
from collections import deque
from collections.abc import Callable

from openhands.sdk.conversation.goal.clock import WorkClock
from openhands.sdk.conversation.goal.errors import GoalStepError
from openhands.sdk.conversation.goal.limits import Limit
from openhands.sdk.conversation.goal.models import (
    AGENT_ERROR,
    BLOCKED,
    PAUSED,
    GoalOutcome,
    GoalOutcomeStatus,
    GoalRound,
    GoalStatus,
    VerifyResult,
)
from openhands.sdk.conversation.goal.prompts import followup_prompt, resume_prompt
from openhands.sdk.conversation.goal.snapshot import GoalRoundState, GoalSnapshot
from openhands.sdk.conversation.goal.steps import (
    ANSWERS,
    ApprovalDecided,
    AskJudge,
    AwaitApproval,
    CheckpointTaken,
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
    TakeCheckpoint,
    Verified,
)
from openhands.sdk.conversation.state import ConversationExecutionStatus

Status = ConversationExecutionStatus

GOAL_START_LABEL = "goal start"
"""The label of the checkpoint a goal takes as it starts (goal round 0)."""

GOAL_RESUMED_LABEL = "goal resumed"
"""The label of the checkpoint a resumed (or continued) goal takes before its first run."""

ROUND_ENDING_ERRORS = frozenset({"MaxIterationsReached"})
"""`ConversationRunError` codes that just end a round (it is judged); others interrupt."""

__all__ = ["GOAL_RESUMED_LABEL", "GOAL_START_LABEL", "ROUND_ENDING_ERRORS", "GoalMachine"]


class GoalMachine:
    """A goal's state (`s`), the steps a driver must perform (`queue`) and the work `clock`."""

    def __init__(self, snapshot: GoalSnapshot, clock: Callable[[], float]) -> None:
        self._plain_ask: AskJudge | None = None
        self.s = snapshot
        self.queue: deque[DriverStep] = deque(snapshot.queue)
        waiting = snapshot.phase == "waiting_for_approval"  # a person's time is free
        running = snapshot.began and snapshot.outcome is None and not waiting
        self.clock = WorkClock(clock, snapshot.elapsed, running=running)

    def snapshot(self) -> GoalSnapshot:
        """The whole state, for `GoalMachine(snapshot, clock)` to continue from."""
        return dataclasses.replace(
            copy.deepcopy(self.s), elapsed=self.clock.elapsed, queue=list(self.queue)
        )

    @property
    def elapsed(self) -> float:
        """Seconds of work on this goal, across resumes."""
        return self.clock.elapsed

    @property
    def agent_cost(self) -> float:
        """USD the agent spent (the round under way included)."""
        current = self.s.round.agent_cost if self.s.round is not None else 0.0
        return self.s.agent_cost + current

    @property
    def cost(self) -> float:
        """Agent plus judge cost in USD."""
        return self.agent_cost + self.s.judge_cost

    def status(self) -> GoalStatus:
        """The goal as the UI chip shows it now (and as it is recorded, to resume it)."""
        s, outcome = self.s, self.s.outcome
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

    def begin(
        self,
        *,
        resume: bool = False,
        conversation_status: Status | None = None,
        rewound_to: str | None = None,
    ) -> None:
        """Start a session of the goal (the rules behind `GoalController.begin`)."""
        if self.s.began:
            raise GoalStepError("This goal has already begun; a controller drives one session.")
        self.s.began = True
        self.clock.restart()
        self.s.error = self.s.reason = None
        message = self._resume_prompt(rewound_to) if resume else self.s.objective
        self._open_round(message)
        if conversation_status == Status.WAITING_FOR_CONFIRMATION:
            self._await_approval()
        else:
            self.s.phase = "agent"
            self._record()
            self._run()
        # The workspace as the goal found it, right after the first status (which the page
        # shows at once; a first snapshot of a large workspace takes a while).
        label, goal_round = (GOAL_RESUMED_LABEL, None) if resume else (GOAL_START_LABEL, 0)
        self.queue.insert(1, TakeCheckpoint(label=label, goal_round=goal_round))

    def next(self) -> DriverStep:
        """The step to perform now (the same one until `advance` is given its result)."""
        if self.queue:
            return self.queue[0]
        if self.s.outcome is not None:
            return Finish(outcome=self.s.outcome)
        raise GoalStepError("The goal has not begun: call begin() first.")

    def advance(self, result: StepResult) -> None:
        """Take the result of the step `next()` gave, and decide what comes next.

        A `Stopped` result ends the goal `interrupted` whatever the step; once the goal has
        ended it only says the final status could not be recorded (the outcome stands). Any
        other result must answer the pending step (see `steps.ANSWERS`), else `GoalStepError`.
        """
        if isinstance(result, Stopped):
            if self.s.outcome is None:
                self.queue.clear()
                self._interrupt(result.reason, result.error, agent_cost=result.agent_cost)
            elif self.queue:
                self.queue.popleft()
            return
        step = self.next()
        expected = ANSWERS.get(type(step), ())
        if not isinstance(result, expected):
            raise GoalStepError(
                f"A {type(result).__name__} does not answer the pending "
                f"{type(step).__name__} step; perform controller.next() and pass its result."
            )
        self.queue.popleft()
        if isinstance(result, StatusRecorded | CheckpointTaken):
            return  # a snapshot that could not be taken never changes the goal
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
        self.clock.restart()  # the time a person took to decide was not the goal's
        if result.status == Status.PAUSED:
            self._interrupt(PAUSED)
            return
        self.s.phase = "agent"
        self._record()
        self._run()

    def _verified(self, result: Verified) -> None:
        current = self._current_round()
        current.verify = result.result
        if self._paused_by_someone(result.conversation_status, current.limit):
            self._interrupt(PAUSED)
            return
        self.s.phase = "judging"
        self._record()
        self.queue.append(self._ask_judge(result.result))

    def _judged(self, result: Judged) -> None:
        s, current = self.s, self._current_round()
        s.iteration += 1
        s.agent_cost += current.agent_cost
        s.judge_cost += max(0.0, result.cost)
        s.judge_failures = s.judge_failures + 1 if result.error else 0
        s.error = result.error
        verify = current.verify
        verdict = result.verdict.gated_by(verify)
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
        self.queue.append(TakeCheckpoint(label=f"round {s.iteration}", goal_round=s.iteration))
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
        self.s.phase = "agent"
        self._record()
        self._run()

    @staticmethod
    def _paused_by_someone(status: Status | None, limit: str | None) -> bool:
        """A pause nobody explains: not the driver's own, made for a limit this round."""
        return status == Status.PAUSED and limit is None

    def _cap_reason(self, limit: Limit | None) -> str | None:
        s = self.s
        return s.limits.cap_reason(
            limit=limit,
            iterations=s.iteration,
            agent_cost=s.agent_cost,
            judge_cost=s.judge_cost,
            elapsed=self.elapsed,
        )

    # -- steps --------------------------------------------------------------------------------

    def _open_round(self, message: str) -> None:
        self.s.round = GoalRoundState(started_at=self.elapsed, message=message)

    def _current_round(self) -> GoalRoundState:
        if self.s.round is None:  # a result for a round nobody opened: count it as one
            self.s.round = GoalRoundState(started_at=self.elapsed)
        return self.s.round

    def _record(self) -> None:
        self.queue.append(RecordStatus(status=self.status()))

    def _await_approval(self) -> None:
        """Wait for a person's decision; that time does not count against the time limit."""
        self.s.phase = "waiting_for_approval"
        self._record()
        self.clock.stop()
        self.queue.append(AwaitApproval())

    def _run(self) -> None:
        """Run the agent with the round's message, unless a limit is already used up: then the
        round is checked at once (its work so far is judged) and the goal caps."""
        s, current = self.s, self._current_round()
        allowance = s.limits.for_run(elapsed=self.elapsed, cost=self.cost)
        current.limit = allowance.reached
        if current.limit is not None:
            self._check_round()
            return
        message, current.message = current.message, None
        self.queue.append(
            RunAgent(message=message, time_left=allowance.time_left, cost_left=allowance.cost_left)
        )

    def _check_round(self) -> None:
        s = self.s
        if s.verify_command is not None:
            s.phase = "verifying"
            self._record()
            self.queue.append(
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
        self.queue.append(self._ask_judge(None))

    def _ask_judge(self, verify: VerifyResult | None) -> AskJudge:
        if verify is None and self._plain_ask is not None:
            return self._plain_ask  # the same question every round (steps are frozen)
        step = AskJudge(
            objective=self.s.objective, verify=verify, transcript_chars=self.s.transcript_chars
        )
        if verify is None:
            self._plain_ask = step
        return step

    # -- endings ------------------------------------------------------------------------------

    def _interrupt(self, reason: str, error: str | None = None, *, agent_cost: float = 0.0) -> None:
        """End `interrupted`; the round under way (if any) counts as worked on."""
        s = self.s
        current, s.round = s.round, None
        if current is not None:
            s.agent_cost += current.agent_cost
        s.agent_cost += max(0.0, agent_cost)
        iterations = s.iteration + (1 if current is not None else 0)
        self._finish("interrupted", reason=reason, error=error, iterations=iterations)

    def _end(
        self, status: GoalOutcomeStatus, *, reason: str | None = None, error: str | None = None
    ) -> None:
        self._finish(status, reason=reason, error=error, iterations=self.s.iteration)

    def _finish(
        self, status: GoalOutcomeStatus, *, reason: str | None, error: str | None, iterations: int
    ) -> None:
        s = self.s
        s.reason, s.error = reason, error
        self.clock.stop()
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

    def _resume_prompt(self, rewound_to: str | None) -> str:
        s = self.s
        return resume_prompt(
            s.objective,
            iteration=s.iteration,
            max_iterations=s.limits.max_iterations,
            verdict=s.verdict,
            verify_command=s.verify_command,
            rewound_to=rewound_to,
        )
