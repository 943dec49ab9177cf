"""`GoalDriver`: runs the SDK's `GoalController` as a background task on a live conversation.

The controller decides (what to send, when the goal is done); the driver only does I/O
around it: send the message, run the agent in a thread, ask the judge in a thread, record a
`ConversationStateUpdateEvent(key="goal")` at every lifecycle point. Every exit path records
a terminal or `interrupted` status, so the UI chip never shows `running` for a dead loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from openhands.agent_server.errors import BadRequestError, ConflictError
from openhands.agent_server.goals.host import GoalHost, RunResult
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.event import ConversationStateUpdateEvent, Event
from openhands.sdk.llm import LLM

if TYPE_CHECKING:
    from openhands.sdk.conversation.goal import GoalController, GoalOutcome, GoalStatus

logger = logging.getLogger(__name__)

GOAL_KEY = "goal"
"""The `key` of the state-update events that carry a `GoalStatus`."""

JUDGE_USAGE_ID = "goal-judge"
"""The usage id of the default judge (a copy of the agent's LLM)."""

ROUND_ENDING_ERRORS = frozenset({"MaxIterationsReached"})
"""Run failures that only end a round (it is judged); any other failure interrupts the goal."""

SERVER_RESTART = "server restart"
STOPPED = "stopped by user"
PAUSED = "conversation paused"
BLOCKED = "message blocked by a hook"


class GoalDriver:
    """One conversation's goal loop: start, stop, resume, interrupt, and its latest status."""

    def __init__(self, host: GoalHost) -> None:
        self._host = host
        self.task: asyncio.Task[None] | None = None
        self.outcome: GoalOutcome | None = None
        self.status: GoalStatus | None = None
        self._controller: GoalController | None = None
        self.judge_llm: LLM | None = None
        """The judge of the current (or last) goal; resume reuses it."""
        self._cancel_reason: str | None = None
        self._inflight: asyncio.Task[None] | None = None
        # Budget watch while the agent runs (read from the agent's thread).
        self._round_cost_start: float | None = None
        self._tripped: str | None = None
        self._pause_task: asyncio.Future[None] | None = None
        self._ended = True
        self._started = False
        self._first_recorded = asyncio.Event()

    @property
    def active(self) -> bool:
        """True while a driver task is working on the goal."""
        return self.task is not None and not self.task.done()

    # -- loading ----------------------------------------------------------------------------

    def load_status(self) -> GoalStatus | None:
        """Find the newest goal status in the event log (once, when the server loads it)."""
        from openhands.sdk.conversation.goal import last_goal_status

        self.status = last_goal_status(self._host.events)
        return self.status

    def recover_after_restart(self) -> ConversationStateUpdateEvent | None:
        """If a dead server left the goal `running`, the event recording it interrupted."""
        status = self.status
        if status is None or not (status.active or status.status == "running"):
            return None
        self.status = status.model_copy(
            update={"active": False, "status": "interrupted", "reason": SERVER_RESTART}
        )
        return _event(self.status)

    # -- commands ---------------------------------------------------------------------------

    async def start(
        self,
        objective: str,
        *,
        judge_llm: LLM | None = None,
        max_iterations: int = 10,
        verify: str | None = None,
        max_cost: float | None = None,
        time_limit: float | None = None,
    ) -> None:
        """Start a goal; ConflictError if a goal or a run is in progress (race-free)."""
        from openhands.sdk.conversation.goal import GoalController

        await self._host.settle()
        self._ensure_idle()
        judge = _judge(judge_llm) or self._host.agent_llm.copy_for(JUDGE_USAGE_ID)
        controller = GoalController(
            objective,
            judge,
            max_iterations=max_iterations,
            verify=verify,
            working_dir=self._host.working_dir,
            max_cost=max_cost,
            time_limit=time_limit,
        )
        self._launch(controller, judge, controller.start())
        await self._announced()

    async def resume(self, *, judge_llm: LLM | None = None) -> None:
        """Continue an interrupted goal from its last status, with a resume prompt."""
        from openhands.sdk.conversation.goal import GoalController

        await self._host.settle()
        self._ensure_idle()
        status = self.status
        if status is None or status.status not in ("interrupted", "running"):
            state = "no goal was started" if status is None else f"the goal is {status.status}"
            raise BadRequestError(
                f"Nothing to resume: {state}. Start a new goal with POST /goal instead."
            )
        judge = _judge(judge_llm) or self.judge_llm or self._host.agent_llm.copy_for(JUDGE_USAGE_ID)
        try:
            controller = GoalController.from_status(
                status, judge, working_dir=self._host.working_dir
            )
        except ValueError as exc:
            raise BadRequestError(f"The goal cannot be resumed: {exc}") from exc
        self._launch(controller, judge, controller.resume_prompt())
        await self._announced()

    async def _announced(self) -> None:
        """Return once the new goal's `running` status is on disk (or its driver ended)."""
        await self._first_recorded.wait()

    async def stop(self) -> None:
        """Cancel the driver and pause the agent (it stops after its current step)."""
        if not self.active:
            return
        await self._host.pause_agent()
        await self.interrupt(STOPPED)

    async def interrupt(self, reason: str) -> None:
        """Cancel the driver; it has recorded `interrupted` (with `reason`) when this returns."""
        task = self.task
        if task is None or task.done():
            return
        self._cancel_reason = reason
        while not self._started and not task.done():
            # A task cancelled before its first step never runs its body (nor its except
            # clauses, which record the interruption): let it start first.
            await asyncio.sleep(0)
        task.cancel()
        await asyncio.wait({task})

    def on_event(self, event: Event) -> None:
        """Track the goal status and the cost budget (called where the event was appended).

        A goal event sets `status` here, after it is on disk and before any socket gets it,
        so a client reading GET /goal after seeing the event never gets the one before.
        """
        if isinstance(event, ConversationStateUpdateEvent) and event.key == GOAL_KEY:
            from openhands.sdk.conversation.goal import GoalStatus

            self.status = GoalStatus.model_validate(event.value)
            return
        controller, start = self._controller, self._round_cost_start
        if controller is None or start is None or controller.max_cost is None:
            return
        left = controller.cost_left(self._host.agent_cost() - start)
        if left is not None and left <= 0 and self._tripped is None:
            self._tripped = "cost budget"
            self._host.request_pause()

    # -- the loop ---------------------------------------------------------------------------

    def _ensure_idle(self) -> None:
        self._host.ensure_open()
        if self.active:
            raise ConflictError("A goal is already running; stop it (POST /goal/stop) first.")
        if self._host.is_busy:
            raise ConflictError(
                "The conversation is running; pause it or wait for it to finish, then start "
                "or resume the goal."
            )

    def _launch(self, controller: GoalController, judge: LLM, message: str) -> None:
        # No await since the idle check: of two concurrent starts, only one gets here first.
        self._controller = controller
        self.judge_llm = judge
        self._cancel_reason = None
        self._ended = False
        self._started = False
        self.outcome = None
        first = controller.status(active=True, status="running")
        self._first_recorded = asyncio.Event()
        self.task = asyncio.create_task(self._drive(controller, message, first))

    async def _drive(self, controller: GoalController, message: str, first: GoalStatus) -> None:
        host = self._host
        self._started = True
        round_start = host.agent_cost()
        try:
            await self._record(first)
            self._first_recorded.set()
            while True:
                try:
                    await self._io(host.send_goal_message(message))
                except BadRequestError as exc:
                    # A UserPromptSubmit hook refused the goal's message: a configured
                    # outcome, not a driver failure (no traceback in the log).
                    await self._end_interrupted(controller, exc.message, BLOCKED, 0.0)
                    return
                round_start = host.agent_cost()
                result = await self._run_round(controller, round_start)
                spent = host.agent_cost() - round_start
                problem = self._interruption(result)
                if problem is not None:
                    error, reason = problem
                    await self._end_interrupted(controller, error, reason, spent)
                    return
                step = await host.blocking(
                    controller.on_run_finished, host.events, agent_cost=spent
                )
                outcome: GoalOutcome | None = getattr(step, "outcome", None)
                if outcome is not None:
                    self.outcome = outcome
                    await self._record_end(
                        controller.status(
                            active=False,
                            status=outcome.status,
                            error=outcome.error,
                            reason=outcome.reason,
                        )
                    )
                    return
                await self._record(controller.status(active=True, status="running"))
                message = step.followup  # type: ignore[union-attr]
        except asyncio.CancelledError:
            await self._settle()
            reason = self._cancel_reason or STOPPED
            await self._end_quietly(controller, None, reason, host.agent_cost() - round_start)
            raise
        except Exception as exc:
            logger.exception("goal driver failed")
            await self._settle()
            error = f"{type(exc).__name__}: {exc}"
            await self._end_quietly(
                controller, error, "driver error", host.agent_cost() - round_start
            )
        finally:
            self._first_recorded.set()
            self._round_cost_start = None
            if not self._ended:
                # Recording the end failed; at least keep the in-memory chip honest.
                self.status = controller.status(
                    active=False, status="interrupted", error="the goal driver stopped"
                )

    async def _run_round(self, controller: GoalController, cost_start: float) -> RunResult:
        """Run the agent once, pausing it if the time or cost budget runs out meanwhile."""
        self._tripped = None
        self._round_cost_start = cost_start
        timer: asyncio.TimerHandle | None = None
        time_left = controller.time_left()
        if time_left is not None:
            timer = asyncio.get_running_loop().call_later(max(0.0, time_left), self._time_up)
        try:
            return await self._host.run_agent()
        finally:
            self._round_cost_start = None
            if timer is not None:
                timer.cancel()

    def _time_up(self) -> None:
        if self._tripped is None:
            self._tripped = "time limit"
            self._pause_task = asyncio.ensure_future(self._host.pause_agent())

    def _interruption(self, result: RunResult) -> tuple[str | None, str] | None:
        """(error, reason) when the run's end interrupts the goal; None when it is judged."""
        if result.error is not None and result.code not in ROUND_ENDING_ERRORS:
            return f"the agent's run failed: {result.error}", "agent error"
        if result.status == ConversationExecutionStatus.PAUSED and self._tripped is None:
            return None, PAUSED
        return None

    async def _end_interrupted(
        self, controller: GoalController, error: str | None, reason: str, spent: float
    ) -> None:
        outcome = controller.interrupted(error or reason, agent_cost=max(0.0, spent), reason=reason)
        status = controller.status(active=False, status="interrupted", reason=reason)
        if error is None:
            # A stop or an interjection is not a failure: the chip shows a reason, no error.
            outcome = outcome.model_copy(update={"error": None})
            status = status.model_copy(update={"error": None})
        self.outcome = outcome
        await self._record_end(status)

    async def _end_quietly(
        self, controller: GoalController, error: str | None, reason: str, spent: float
    ) -> None:
        """`_end_interrupted` on an exit path: a failure to record is logged, not raised."""
        try:
            await self._end_interrupted(controller, error, reason, spent)
        except Exception:
            logger.exception("recording the interrupted goal failed")

    async def _record_end(self, status: GoalStatus) -> None:
        await self._record(status)
        self._ended = True

    async def _record(self, status: GoalStatus) -> None:
        # The status readers see (GET /goal) is always one that is already on disk.
        await self._io(self._host.append_event(_event(status)))
        self.status = status

    async def _io(self, operation: Coroutine[Any, Any, None]) -> None:
        """Run a conversation write that must finish even if the driver is cancelled."""
        self._inflight = asyncio.ensure_future(operation)
        await asyncio.shield(self._inflight)

    async def _settle(self) -> None:
        """Wait for a write cut short by a cancel, so the final status is appended last."""
        inflight = self._inflight
        if inflight is None:
            return
        if not inflight.done():
            await asyncio.wait({inflight})
        if not inflight.cancelled():
            # The driver is ending, so the write's own failure (a hook refusing the message)
            # no longer matters; retrieving it keeps asyncio from logging it as lost.
            inflight.exception()


def _judge(llm: LLM | None) -> LLM | None:
    """A requested judge, counted under `goal-judge` unless the request named a usage id."""
    if llm is None or "usage_id" in llm.model_fields_set:
        return llm
    return llm.copy_for(JUDGE_USAGE_ID)


def _event(status: GoalStatus) -> ConversationStateUpdateEvent:
    value: dict[str, Any] = status.model_dump(mode="json")
    return ConversationStateUpdateEvent(key=GOAL_KEY, value=value)
