"""`GoalDriver`: runs the SDK's `GoalController` as a background task on a live conversation.

The controller decides everything (what to send, whether a run's end or a pause interrupts
the goal, when a budget pauses a run, when the goal is done); the driver only does I/O around
it: send the message, run the agent in a thread, run verify and the judge in threads, record
a `ConversationStateUpdateEvent(key="goal")` at every lifecycle point and phase change. Every
exit path records a terminal or `interrupted` status, so the UI chip never shows `running`
for a dead loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from openhands.agent_server.errors import BadRequestError, ConflictError, InvalidRequestError
from openhands.agent_server.goals.backend import goal_backend
from openhands.agent_server.goals.host import GoalHost
from openhands.agent_server.goals.judges import default_judge, requested_judge
from openhands.agent_server.goals.restart import interrupted_by_restart
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.conversation.goal import (
    GoalController,
    GoalDone,
    GoalOutcome,
    GoalStatus,
    GoalStatusWriter,
    GoalStep,
    InvalidGoalError,
    NoResumableGoalError,
    RunEnd,
    goal_status_from,
)
from openhands.sdk.conversation.goal.models import (
    BLOCKED,
    DRIVER_ERROR,
    STOPPED,
)
from openhands.sdk.conversation.goal.runner import APPROVAL_POLL_SECONDS
from openhands.sdk.conversation.goal.status import GOAL_STATE_KEY, last_goal_event
from openhands.sdk.event import ConversationStateUpdateEvent, Event
from openhands.sdk.llm import LLM

logger = logging.getLogger(__name__)


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
        self._inflight: asyncio.Future[None] | None = None
        # Budget watch while the agent runs (read from the agent's thread).
        self._round_cost_start: float | None = None
        self._pause_task: asyncio.Future[None] | None = None
        self._ended = True
        self._started = False
        # Done once the goal's first status is on disk; its exception if that write failed.
        self._first_recorded: asyncio.Future[None] | None = None
        # False once the goal is discarded (its conversation deleted): record nothing more.
        self._record_end = True
        # The default judge (a copy of the agent's LLM), reused so its usage accumulates.
        self._default_judge: LLM | None = None
        # Goal events hold the objective once; `_recording` is the one being appended now.
        self._writer: GoalStatusWriter = GoalStatusWriter()
        self._recording: tuple[str, GoalStatus] | None = None
        # The conversation's status as its log says (a pause while judging shows up here).
        self._execution_status: ConversationExecutionStatus | None = None
        # The id of the goal's run on a remote backend (Temporal), when one drives it.
        self._remote_run: str | None = None

    @property
    def active(self) -> bool:
        """True while a driver task (or a remote run, see goals/backend.py) works on the goal."""
        if self._remote_run is not None:
            return self.status is not None and self.status.active
        return self.task is not None and not self.task.done()

    # -- loading ----------------------------------------------------------------------------

    def load_status(self) -> GoalStatus | None:
        """Find the newest goal status in the event log (once, when the server loads it)."""
        event = last_goal_event(self._host.events)
        self.status = None if event is None else goal_status_from(event, self._host.events)
        if event is not None and self.status is not None:
            self._writer.adopt(event, self.status.objective)
        backend = goal_backend()
        if backend is not None and self.status is not None and self.status.active:
            self._remote_run = backend.run_id(self._host.id)  # it outlived the last server
        return self.status

    def recover_after_restart(self) -> ConversationStateUpdateEvent | None:
        """If a dead server left the goal `running`, the event recording it interrupted."""
        if goal_backend() is not None:
            return None  # the remote run outlives this server: it goes on and records on
        recovered = None if self.status is None else interrupted_by_restart(self.status)
        if recovered is None:
            return None
        self.status = recovered
        return self._writer.event(recovered)

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
        """Start a goal once its `running` status is on disk; ConflictError if a goal or a run
        is in progress (race-free).

        The options mean what `GoalRequest` says (0 or None: unlimited); an invalid one is an
        `InvalidRequestError` naming it. If the first status cannot be written (a full disk:
        `StorageFullError`), that error is raised and no goal runs.
        """
        await self._host.settle()
        self._ensure_idle()
        judge = requested_judge(judge_llm) or self._default()
        try:
            controller = GoalController(
                objective,
                judge,
                max_iterations=max_iterations,
                verify=verify,
                working_dir=self._host.working_dir,
                max_cost=max_cost,
                time_limit=time_limit,
            )
        except InvalidGoalError as exc:
            raise InvalidRequestError(str(exc), ("body", exc.field or "objective")) from exc
        await self._go(controller, judge, resume=False)

    async def resume(self, *, judge_llm: LLM | None = None) -> None:
        """Continue an interrupted goal from its last status, with a resume prompt."""
        await self._host.settle()
        self._ensure_idle()
        status = self.status
        if status is None or not status.resumable:
            state = "no goal was started" if status is None else f"the goal is {status.status}"
            raise BadRequestError(
                f"Nothing to resume: {state}. Start a new goal with POST /goal instead.",
                code=NoResumableGoalError.code,
            )
        judge = requested_judge(judge_llm) or self.judge_llm or self._default()
        try:
            controller = GoalController.from_status(
                status, judge, working_dir=self._host.working_dir
            )
        except ValueError as exc:
            raise BadRequestError(f"The goal cannot be resumed: {exc}") from exc
        await self._go(controller, judge, resume=True)

    async def _go(self, controller: GoalController, judge: LLM, *, resume: bool) -> None:
        backend = goal_backend()
        if backend is None:
            self._launch(
                controller, judge, controller.resume_prompt() if resume else controller.start()
            )
            await self._announced()
            return
        # A remote run: `running` is on disk before the answer, then the run takes over.
        self.judge_llm = judge
        status = controller.running_status()
        await self._record(status)
        try:
            self._remote_run = await backend.start(
                self._host.id, status, judge, self._host.working_dir, resume=resume
            )
        except Exception as exc:
            failed = controller.interrupted(f"{type(exc).__name__}: {exc}", reason=DRIVER_ERROR)
            await self._record(controller.final_status(failed))
            raise ConflictError(f"The goal could not be handed to its backend: {exc}") from exc

    @property
    def remote(self) -> bool:
        """True while a remote run (not this server) drives the goal."""
        return self._remote_run is not None and self.active

    async def record_remote(self, status: GoalStatus) -> None:
        """Record a status a remote run sent (POST /goal/status); an equal newest one is kept."""
        if self.status is not None and self.status.model_dump() == status.model_dump():
            return
        await self._record(status)

    def _default(self) -> LLM:
        """The default judge: a copy of the agent's LLM counted under `goal-judge`."""
        if self._default_judge is None:
            self._default_judge = default_judge(self._host.agent_llm)
        return self._default_judge

    async def _announced(self) -> None:
        """Return once the new goal's `running` status is on disk (or its driver ended).

        Raises what the first status write raised: then nothing was recorded and no goal runs.
        """
        first = self._first_recorded
        if first is not None:
            await asyncio.shield(first)

    async def stop(self) -> None:
        """Cancel the driver and pause the agent (it stops after its current step)."""
        if not self.active:
            return
        backend = goal_backend()
        if self._remote_run is not None and backend is not None:
            await backend.cancel(self._remote_run)  # the run records `interrupted` itself
            await self._host.pause()
            return
        await self._host.pause()
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

    async def discard(self) -> None:
        """Cancel the driver without recording anything (its conversation was deleted)."""
        self._record_end = False
        await self.interrupt("conversation deleted")

    def on_event(self, event: Event) -> None:
        """Track the goal status, the run status and the budget (called where it was appended).

        A goal event sets `status` here, after it is on disk and before any socket gets it,
        so a client reading GET /goal after seeing the event never gets the one before.
        """
        if not isinstance(event, ConversationStateUpdateEvent):
            self._watch_budget()
            return
        if event.key == GOAL_STATE_KEY:
            self._adopt_status(event)
            return
        if event.key == "execution_status" and isinstance(event.value, str):
            try:
                self._execution_status = ConversationExecutionStatus(event.value)
            except ValueError:
                logger.warning("unknown execution status %r in the log", event.value)
        self._watch_budget()

    def _adopt_status(self, event: ConversationStateUpdateEvent) -> None:
        recording = self._recording
        if recording is not None and recording[0] == event.id:
            self.status = recording[1]
            return
        known = self.status.objective if self.status is not None else ""
        self.status = goal_status_from(event, self._host.events, objective=known)

    def _watch_budget(self) -> None:
        controller, start = self._controller, self._round_cost_start
        if controller is None or start is None:
            return
        if controller.check_budget(self._host.agent_cost() - start) is not None:
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
        previous = (self.judge_llm, self.outcome)
        self._controller = controller
        self.judge_llm = judge
        self._cancel_reason = None
        self._ended = False
        self._started = False
        self._record_end = True
        self.outcome = None
        first = controller.running_status()
        self._first_recorded = asyncio.get_running_loop().create_future()
        self.task = asyncio.create_task(self._drive(controller, message, first, previous))

    async def _drive(
        self,
        controller: GoalController,
        message: str,
        first: GoalStatus,
        previous: tuple[LLM | None, GoalOutcome | None],
    ) -> None:
        host = self._host
        announced = self._first_recorded
        assert announced is not None
        self._started = True
        round_start = host.agent_cost()
        try:
            try:
                await self._record(first)
            except Exception as exc:
                # Not started: nothing is on disk, so the goal is as it was and the caller
                # (POST /goal) gets the error, e.g. a full disk's 507.
                self._ended = True
                self.judge_llm, self.outcome = previous
                announced.set_exception(exc)
                announced.exception()  # retrieved: the caller may have gone away
                return
            announced.set_result(None)
            # Counted in the conversation's stats (persisted with it) once the goal started.
            host.register_llm(controller.judge_llm)
            before = await self._pending_approval(controller)
            interruption = None if before is None else controller.classify_run_end(before)
            if interruption is not None:
                await self._end(controller, controller.interrupt(interruption))
                return
            while True:
                try:
                    await self._io(host.send_goal_message(message))
                except BadRequestError as exc:
                    # A UserPromptSubmit hook refused the goal's message: a configured
                    # outcome, not a driver failure (no traceback in the log).
                    await self._end(controller, controller.interrupted(exc.message, reason=BLOCKED))
                    return
                round_start = host.agent_cost()
                end = await self._run_round(controller, round_start)
                while controller.awaits_approval(end):
                    await self._record(controller.running_status())
                    decided = await self._decision()
                    if decided is not None:
                        end = decided
                        break
                    controller.enter_phase("agent")
                    await self._record(controller.running_status())
                    end = await self._run_round(controller, round_start)
                spent = host.agent_cost() - round_start
                interruption = controller.classify_run_end(end)
                if interruption is not None:
                    outcome = controller.interrupt(interruption, agent_cost=spent)
                    await self._end(controller, outcome)
                    return
                step = await self._check_round(controller, spent)
                if isinstance(step, GoalDone):
                    await self._end(controller, step.outcome)
                    return
                # A pause that came while the round was checked ends the goal here.
                status = self._execution_status
                interruption = (
                    None if status is None else controller.classify_run_end(RunEnd(status=status))
                )
                if interruption is not None:
                    await self._end(controller, controller.interrupt(interruption))
                    return
                await self._record(controller.running_status())
                message = step.followup
        except asyncio.CancelledError:
            await self._settle()
            reason = self._cancel_reason or STOPPED
            spent = host.agent_cost() - round_start
            await self._end_quietly(controller, None, reason, spent)
            raise
        except Exception as exc:
            logger.exception("goal driver failed")
            await self._settle()
            error = f"{type(exc).__name__}: {exc}"
            await self._end_quietly(
                controller, error, DRIVER_ERROR, host.agent_cost() - round_start
            )
        finally:
            if not announced.done():
                announced.set_result(None)
            self._round_cost_start = None
            if not self._ended:
                # Recording the end failed; at least keep the in-memory chip honest.
                self.status = controller.status(
                    active=False, status="interrupted", error="the goal driver stopped"
                )

    async def _run_round(self, controller: GoalController, cost_start: float) -> RunEnd:
        """Run the agent once, pausing it if the time or cost budget runs out meanwhile."""
        self._round_cost_start = cost_start
        timer: asyncio.TimerHandle | None = None
        time_left = controller.time_left()
        if time_left is not None:
            timer = asyncio.get_running_loop().call_later(
                max(0.0, time_left), self._time_up, controller
            )
        try:
            return await self._host.run_agent()
        finally:
            self._round_cost_start = None
            if timer is not None:
                timer.cancel()

    async def _pending_approval(self, controller: GoalController) -> RunEnd | None:
        """A goal started while a tool call waits for approval waits for the same answer.

        Running the agent now would approve the call (a run on a waiting conversation
        does), so nothing runs until a person approves or rejects it
        (`respond_to_confirmation`); then the agent goes on from there, asking again if it
        must, and the goal's own message follows. None when nothing waited; else how that
        run ended (paused or failed: the goal is interrupted).
        """
        waiting = ConversationExecutionStatus.WAITING_FOR_CONFIRMATION
        self._execution_status = self._host.execution_status  # the log's, after a restart too
        if self._execution_status != waiting:
            return None
        end = RunEnd(status=waiting)
        while controller.awaits_approval(end):
            await self._record(controller.running_status())
            decided = await self._decision()
            if decided is not None:
                return decided
            controller.enter_phase("agent")
            await self._record(controller.running_status())
            end = await self._run_round(controller, self._host.agent_cost())
        return end

    async def _decision(self) -> RunEnd | None:
        """Wait while the agent waits for approval (POST .../respond_to_confirmation decides,
        and never runs the agent itself while a goal drives it). None: run again; a
        `RunEnd` when the conversation was paused meanwhile."""
        waiting = ConversationExecutionStatus.WAITING_FOR_CONFIRMATION
        while self._execution_status == waiting:
            await asyncio.sleep(APPROVAL_POLL_SECONDS)
        status = self._execution_status
        if status == ConversationExecutionStatus.PAUSED:
            return RunEnd(status=status)
        return None

    def _time_up(self, controller: GoalController) -> None:
        if controller.time_up() is not None:
            self._pause_task = asyncio.ensure_future(self._host.pause())

    async def _check_round(self, controller: GoalController, spent: float) -> GoalStep:
        """Verify (if set) and judge the round in threads, recording each phase, then decide.

        The same steps as `GoalController.on_run_finished`, with a status written (and
        awaited) before each one, which a synchronous callback cannot do from a thread.
        """
        host = self._host
        verify = None
        if controller.verify_command is not None:
            controller.enter_phase("verifying")
            await self._record(controller.running_status())
            verify = await host.blocking(controller.run_verify)
        controller.enter_phase("judging")
        await self._record(controller.running_status())
        answer = await host.blocking(controller.run_judge, host.events, verify)
        return controller.record_round(
            answer.verdict,
            verify=verify,
            judge_error=answer.error,
            agent_cost=spent,
            judge_cost=answer.cost,
        )

    async def _end(self, controller: GoalController, outcome: GoalOutcome) -> None:
        self.outcome = outcome
        await self._record(controller.final_status(outcome))
        self._ended = True

    async def _end_quietly(
        self, controller: GoalController, error: str | None, reason: str, spent: float
    ) -> None:
        """End interrupted on an exit path: a failure to record is logged, not raised."""
        if not self._record_end:
            self._ended = True
            return
        try:
            outcome = controller.interrupted(error, agent_cost=max(0.0, spent), reason=reason)
            await self._end(controller, outcome)
        except Exception:
            logger.exception("recording the interrupted goal failed")

    async def _record(self, status: GoalStatus) -> None:
        # The status readers see (GET /goal) is always one that is already on disk.
        event = self._writer.event(status)
        self._recording = (event.id, status)
        await self._io(self._host.append_event(event))
        self._writer.written(event)
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
