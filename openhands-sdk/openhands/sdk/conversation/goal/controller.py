"""`GoalController`: the goal loop's decisions, with no conversation I/O.

A driver (the sync `run_goal`, the agent server's task, a durable workflow) sends
`start()` to the agent, runs it, and calls `on_run_finished(events)`; the controller runs
`verify`, asks the judge, and says whether to stop (`GoalDone`) or what to send next
(`GoalContinue`). Its whole state fits in a `GoalStatus`, so `from_status` rebuilds it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from openhands.sdk.conversation.event_log import EventLog
from openhands.sdk.conversation.goal.judge import ask_judge, gate_on_verify
from openhands.sdk.conversation.goal.models import (
    GoalContinue,
    GoalDone,
    GoalOutcome,
    GoalOutcomeStatus,
    GoalStatus,
    GoalStatusName,
    GoalStep,
    GoalVerdict,
    VerifyResult,
)
from openhands.sdk.conversation.goal.prompts import followup_prompt, resume_prompt
from openhands.sdk.conversation.goal.transcript import DEFAULT_TRANSCRIPT_CHARS, TranscriptWindow
from openhands.sdk.conversation.goal.verify import (
    DEFAULT_VERIFY_TIMEOUT,
    Verifier,
    run_verify_command,
    safe_verify,
)
from openhands.sdk.event.base import Event
from openhands.sdk.llm.llm import LLM

MAX_JUDGE_FAILURES = 3
"""Judge failures in a row (errors or unparseable answers) that interrupt a goal."""


def _positive_or_none(name: str, value: float | None) -> float | None:
    if value is None or value == 0:
        return None
    if value < 0:
        raise ValueError(f"{name} must be > 0 (or 0/None for no limit), got {value}")
    return float(value)


class GoalController:
    """Decides a goal loop: judge each round, then continue with a follow-up or stop.

    Limits: `max_iterations` rounds (>= 1); optional `max_cost` in USD for agent plus judge
    and `time_limit` in wall-clock seconds (0 or None: unlimited). `verify` is a shell
    command run in `working_dir` after each round; the goal cannot complete unless it
    exits 0. `iteration` is the number of rounds already judged (for resuming).
    """

    def __init__(
        self,
        objective: str,
        judge_llm: LLM,
        *,
        max_iterations: int = 10,
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
        if not isinstance(objective, str) or not objective.strip():
            raise ValueError("objective must be a non-blank string saying what 'done' means")
        if isinstance(max_iterations, bool) or not isinstance(max_iterations, int):
            raise ValueError(f"max_iterations must be an integer >= 1, got {max_iterations!r}")
        if max_iterations < 1:
            raise ValueError(f"max_iterations must be >= 1, got {max_iterations}")
        if not 0 <= iteration < max_iterations:
            raise ValueError(
                f"iteration must be in 0..{max_iterations - 1} (rounds already done), got "
                f"{iteration}; a goal that used all its rounds needs a larger max_iterations"
            )
        if max_judge_failures < 1:
            raise ValueError(f"max_judge_failures must be >= 1, got {max_judge_failures}")
        self._objective = objective.strip()
        self.judge_llm = judge_llm
        self._max_iterations = max_iterations
        self._verify_command = verify.strip() if verify and verify.strip() else None
        self.working_dir = working_dir
        self._max_cost = _positive_or_none("max_cost", max_cost)
        self._time_limit = _positive_or_none("time_limit", time_limit)
        self._verifier: Verifier = verifier or (
            lambda command, cwd: run_verify_command(command, cwd, timeout=verify_timeout)
        )
        self._max_judge_failures = max_judge_failures
        self._clock = clock
        self._window = TranscriptWindow(transcript_chars)

        self._iteration = iteration
        self._agent_cost = 0.0
        self._judge_cost = 0.0
        self._elapsed_before = 0.0
        self._session_start = clock()
        self._clock_running = True
        self._judge_failures = 0
        self._verdict: GoalVerdict | None = None
        self._verify: VerifyResult | None = None
        self._error: str | None = None
        self._reason: str | None = None
        self._round_open = False

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
    def max_iterations(self) -> int:
        """The round cap."""
        return self._max_iterations

    @property
    def verify_command(self) -> str | None:
        """The shell command that must exit 0 for the goal to complete, if any."""
        return self._verify_command

    @property
    def max_cost(self) -> float | None:
        """The USD budget for agent plus judge, or None."""
        return self._max_cost

    @property
    def time_limit(self) -> float | None:
        """The wall-clock budget in seconds, or None."""
        return self._time_limit

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
        if not self._clock_running:
            return self._elapsed_before
        return self._elapsed_before + max(0.0, self._clock() - self._session_start)

    @property
    def verdict(self) -> GoalVerdict | None:
        """The latest verdict."""
        return self._verdict

    def time_left(self) -> float | None:
        """Seconds left before the time limit, or None without one."""
        return None if self._time_limit is None else self._time_limit - self.elapsed

    def cost_left(self, pending_agent_cost: float = 0.0) -> float | None:
        """USD left in the budget after `pending_agent_cost` (not yet reported), or None."""
        if self._max_cost is None:
            return None
        return self._max_cost - self.cost - max(0.0, pending_agent_cost)

    # -- the loop ---------------------------------------------------------------------------

    def start(self) -> str:
        """Begin the goal: the first message for the agent is the objective itself."""
        self._begin_round()
        return self._objective

    def resume_prompt(self) -> str:
        """Begin again after an interruption: a message telling the agent to carry on."""
        self._begin_round()
        return resume_prompt(
            self._objective,
            iteration=self._iteration,
            max_iterations=self._max_iterations,
            verdict=self._verdict,
            verify_command=self._verify_command,
        )

    def on_run_finished(
        self, events: Sequence[Event] | EventLog, *, agent_cost: float = 0.0
    ) -> GoalStep:
        """Judge the round that just ended and decide what happens next.

        `events` is the whole conversation history (a list or the conversation's `EventLog`);
        only events added since the last call are rendered. `agent_cost` is the USD the agent
        spent in this round (the metrics delta around the run), not a running total.
        """
        transcript = self._window.update(events)
        verify = (
            safe_verify(self._verifier, self._verify_command, self.working_dir)
            if self._verify_command
            else None
        )
        answer = ask_judge(self.judge_llm, self._objective, transcript, verify)
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
        goal: a driver that skipped the command has not proven anything.
        """
        self._round_open = False
        self._iteration += 1
        self._agent_cost += max(0.0, agent_cost)
        self._judge_cost += max(0.0, judge_cost)
        self._judge_failures = self._judge_failures + 1 if judge_error else 0
        self._error = judge_error
        verdict = gate_on_verify(verdict, verify)
        if verify is None and self._verify_command is not None and verdict.complete:
            gap = f"`{self._verify_command}` must exit 0 (it was not run this round)"
            verdict = verdict.model_copy(
                update={"complete": False, "missing": [*verdict.missing, gap]}
            )
        self._verdict, self._verify = verdict, verify

        if verdict.complete:
            return self._done("complete")
        cap = self._cap_reason()
        if cap is not None:
            return self._done("capped", reason=cap, error=judge_error)
        if self._judge_failures >= self._max_judge_failures:
            reason = f"the judge failed {self._judge_failures} times in a row"
            return self._done("interrupted", reason=reason, error=f"{reason}: {judge_error}")
        self._round_open = True
        followup = followup_prompt(
            self._objective,
            verdict,
            iteration=self._iteration,
            max_iterations=self._max_iterations,
            verify=verify,
            judge_error=judge_error,
        )
        return GoalContinue(followup=followup, verdict=verdict)

    def interrupted(
        self, error: str, *, agent_cost: float = 0.0, reason: str | None = None
    ) -> GoalOutcome:
        """The outcome of a goal cut short by `error` (agent failure, stop, crash).

        `iterations` counts the round that was cut, if one was under way.
        """
        self._agent_cost += max(0.0, agent_cost)
        self._error = error
        self._reason = reason or "interrupted"
        iterations = self._iteration + (1 if self._round_open else 0)
        self._round_open = False
        self._stop_clock()
        return self._outcome("interrupted", reason=self._reason, error=error, iterations=iterations)

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
        return GoalStatus(
            active=active,
            status=status,
            iteration=self._iteration,
            max_iterations=self._max_iterations,
            objective=self._objective,
            verdict=self._verdict,
            verify=self._verify,
            error=error if error is not None else self._error,
            cost=self.cost,
            judge_cost=self._judge_cost,
            reason=reason if reason is not None else self._reason,
            verify_command=self._verify_command,
            max_cost=self._max_cost,
            time_limit=self._time_limit,
            elapsed=self.elapsed,
            judge_failures=self._judge_failures,
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
        controller._elapsed_before = status.elapsed
        controller._judge_failures = status.judge_failures
        controller._verdict = status.verdict
        controller._verify = status.verify
        return controller

    # -- internals ----------------------------------------------------------------------------

    def _begin_round(self) -> None:
        # A (re)started driver starts a new wall-clock session; time while stopped is free.
        if not self._clock_running:
            self._session_start = self._clock()
            self._clock_running = True
        self._round_open = True
        self._error = None
        self._reason = None

    def _stop_clock(self) -> None:
        self._elapsed_before = self.elapsed
        self._clock_running = False

    def _cap_reason(self) -> str | None:
        if self._iteration >= self._max_iterations:
            return f"reached max_iterations ({self._max_iterations}) without a complete verdict"
        if self._max_cost is not None and self.cost >= self._max_cost:
            return (
                f"cost budget reached: ${self.cost:.4f} spent of max_cost ${self._max_cost:.4f} "
                f"(agent ${self._agent_cost:.4f}, judge ${self._judge_cost:.4f})"
            )
        elapsed = self.elapsed
        if self._time_limit is not None and elapsed >= self._time_limit:
            return f"time limit reached: {elapsed:.1f} s of time_limit {self._time_limit:g} s"
        return None

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
