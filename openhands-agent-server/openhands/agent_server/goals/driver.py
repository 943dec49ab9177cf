"""`GoalDriver`: a conversation's goal on the server: start, stop, resume, its status.

Every rule is the SDK's `GoalController`'s; its steps are performed by `HostSteps`. Who
interprets the steps is the configured backend's choice: this server (`_interpret`, a short
loop in an asyncio task) or a remote run (a Temporal workflow sending each step to
POST /goal/steps, see `remote.py`). Either way the goal's first status is on disk before
POST /goal answers, a stop or a user message ends it `interrupted` with that reason, and the
chip never shows `running` for a dead loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from openhands.agent_server.errors import BadRequestError, ConflictError
from openhands.agent_server.goals.backend import GoalBackend, goal_backend
from openhands.agent_server.goals.host import GoalHost
from openhands.agent_server.goals.judges import default_judge, requested_judge
from openhands.agent_server.goals.remote import RemoteRun
from openhands.agent_server.goals.steps import HostSteps
from openhands.sdk.conversation.goal import (
    DriverStep,
    Finish,
    GoalController,
    GoalOutcome,
    GoalRequest,
    GoalStatus,
    GoalStatusWriter,
    NoResumableGoalError,
    RecordStatus,
    StatusRecorded,
    StepResult,
    Stopped,
    goal_status_from,
    interrupted_by_restart,
)
from openhands.sdk.conversation.goal.models import DRIVER_ERROR, STOPPED
from openhands.sdk.conversation.goal.status import (
    GOAL_STATE_KEY,
    last_goal_event,
    stopped_status,
)
from openhands.sdk.event import ConversationStateUpdateEvent, Event
from openhands.sdk.llm import LLM

logger = logging.getLogger(__name__)

DELETED = "conversation deleted"
"""Why the goal of a deleted conversation stops (nothing is recorded)."""


class GoalDriver:
    """One conversation's goal: start, stop, resume, interrupt, and its latest status."""

    def __init__(self, host: GoalHost) -> None:
        self._host = host
        self.task: asyncio.Task[None] | None = None
        """The built-in interpreter of the current (or last) goal."""
        self.outcome: GoalOutcome | None = None
        self.status: GoalStatus | None = None
        self.judge_llm: LLM | None = None
        """The judge of the current (or last) goal; resume reuses it."""
        self._steps: HostSteps | None = None
        self._remote: RemoteRun | None = None
        # Set while a start records the goal's first status (and hands it over).
        self._claim: asyncio.Event | None = None
        self._started = False
        self._cancel_reason: str | None = None
        # False once the goal is discarded (its conversation deleted): record nothing more.
        self._record_end = True
        # The default judge (a copy of the agent's LLM), reused so its usage accumulates.
        self._default_judge: LLM | None = None
        # Goal events hold the objective once; `_recording` is the one being appended now.
        self._writer = GoalStatusWriter()
        self._recording: tuple[str, GoalStatus] | None = None

    @property
    def active(self) -> bool:
        """True while a start is under way or an interpreter (here or remote) works on the goal."""
        if self._claim is not None:
            return True
        if self._remote is not None and not self._remote.ended.is_set():
            return True
        return self.task is not None and not self.task.done()

    # -- loading ----------------------------------------------------------------------------

    def load_status(self) -> GoalStatus | None:
        """Find the newest goal status in the event log (once, when the server loads it)."""
        event = last_goal_event(self._host.events)
        self.status = None if event is None else goal_status_from(event, self._host.events)
        if event is not None and self.status is not None:
            self._writer.adopt(event, self.status.objective)
        return self.status

    def recover_after_restart(self) -> ConversationStateUpdateEvent | None:
        """If a dead server left the goal `running`, the event recording it interrupted.

        The same on every backend: the agent's run died with the server, so a remote run that
        outlived it is refused from now on and the goal is resumed by POST /goal/resume.
        """
        recovered = None if self.status is None else interrupted_by_restart(self.status)
        if recovered is None:
            return None
        self.status = recovered
        return self._writer.event(recovered)

    # -- commands ---------------------------------------------------------------------------

    async def start(self, request: GoalRequest, *, judge_llm: LLM | None = None) -> None:
        """Start a goal once its `running` status is on disk; ConflictError if a goal or a run
        is in progress (race-free). `judge_llm` is the judge to use (with its key); None: a
        copy of the agent's LLM. If the first status cannot be written (a full disk:
        `StorageFullError`), that error is raised and no goal runs.
        """
        await self._host.settle()
        self._ensure_idle()
        judge = requested_judge(judge_llm) or self._default()
        controller = GoalController.from_request(request, judge, working_dir=self._host.working_dir)
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

    async def stop(self) -> None:
        """End the goal `interrupted` (stopped by user) and pause the agent (it stops after
        its current step). The goal is told first, so the run's pause cannot end it another
        way."""
        if not self.active:
            return
        await self._settle_claim()
        self._tell(STOPPED)
        await self._host.pause()
        await self._ended(STOPPED)

    async def interrupt(self, reason: str) -> None:
        """End the goal `interrupted` with `reason`; recorded when this returns.

        The interpreter (this server's task, or the remote run told through its step) records
        the end; a remote run that does not within its backend's `stop_wait` is cancelled and
        the end is recorded here.
        """
        await self._settle_claim()
        self._tell(reason)
        await self._ended(reason)

    async def _settle_claim(self) -> None:
        claim = self._claim
        if claim is not None:
            await claim.wait()  # let the start finish: then there is something to stop

    def _tell(self, reason: str) -> None:
        """Tell the interpreter to stop for `reason` (once), without waiting for it."""
        task = self.task
        if task is not None and not task.done() and self._cancel_reason is None:
            self._cancel_reason = reason
            if self._started:
                task.cancel()
        remote = self._remote
        if remote is not None:
            remote.stop(reason)

    async def _ended(self, reason: str) -> None:
        """Wait until the interpreter has recorded the end (see `interrupt`)."""
        task = self.task
        if task is not None and not task.done():
            while not self._started and not task.done():
                # A task cancelled before its first step never runs its body (nor its except
                # clauses, which record the interruption): let it start first.
                await asyncio.sleep(0)
            if not task.cancelling():
                task.cancel()
            await asyncio.wait({task})
        remote = self._remote
        if remote is not None and not remote.ended.is_set():
            backend = goal_backend()
            wait = backend.stop_wait if backend is not None else 0.0
            try:
                await asyncio.wait_for(remote.ended.wait(), wait)
            except TimeoutError:
                logger.warning("goal run of %s did not record its end; ending it", self._host.id)
                await self._abandon_remote(reason)

    async def discard(self) -> None:
        """Stop the goal without recording anything (its conversation was deleted)."""
        self._record_end = False
        if self._remote is not None:
            self._remote.stop(DELETED)
            self._remote = None
            await self._cancel_remote()
        await self.interrupt(DELETED)

    async def perform_remote(
        self,
        run: str,
        step_id: str,
        step: DriverStep,
        wait: float,
        records: Sequence[RecordStatus] = (),
    ) -> StepResult | None:
        """Perform a step sent by the goal's remote run `run`, after recording `records` (None:
        still under way after `wait` seconds; ask again with the same `step_id`).
        ConflictError when `run` does not drive this conversation's goal (it was stopped or
        replaced, or the server restarted)."""
        remote = self._remote
        if remote is None or remote.token != run:
            raise ConflictError(
                f"Goal run {run} does not drive conversation {self._host.id} (it was stopped "
                "or replaced, or the server restarted); its steps are refused."
            )
        result = await remote.perform(step_id, step, wait, records)
        if remote.ended.is_set() and self._remote is remote:
            self._remote = None
        return result

    def on_event(self, event: Event) -> None:
        """Track the goal status and feed the steps (called where the event was appended).

        A goal event sets `status` here, after it is on disk and before any socket gets it,
        so a client reading GET /goal after seeing the event never gets the one before.
        """
        steps = self._steps
        if steps is not None:
            steps.on_event(event)
        if isinstance(event, ConversationStateUpdateEvent) and event.key == GOAL_STATE_KEY:
            self._adopt_status(event)

    # -- starting -----------------------------------------------------------------------------

    def _ensure_idle(self) -> None:
        self._host.ensure_open()
        if self.active:
            raise ConflictError("A goal is already running; stop it (POST /goal/stop) first.")
        if self._host.is_busy:
            raise ConflictError(
                "The conversation is running; pause it or wait for it to finish, then start "
                "or resume the goal."
            )

    def _default(self) -> LLM:
        """The default judge: a copy of the agent's LLM counted under `goal-judge`."""
        if self._default_judge is None:
            self._default_judge = default_judge(self._host.agent_llm)
        return self._default_judge

    async def _go(self, controller: GoalController, judge: LLM, *, resume: bool) -> None:
        """Begin the goal and record its first status, then hand its steps to an interpreter.

        No await between the idle check and the claim: of two concurrent starts one claims.
        """
        claim = self._claim = asyncio.Event()
        steps = HostSteps(self._host, judge, self._record, asyncio.get_running_loop())
        previous = self._steps
        self._steps = steps
        try:
            controller.begin(resume=resume, conversation_status=self._host.execution_status)
            first = controller.next()
            assert isinstance(first, RecordStatus)
            try:
                await steps.record(first)
            except BaseException:
                self._steps = previous  # nothing is on disk: the goal is as it was
                raise
            controller.advance(StatusRecorded())
            self.judge_llm, self.outcome = judge, None
            self._cancel_reason, self._record_end, self._started = None, True, False
            # Counted in the conversation's stats (persisted with it) once the goal started.
            self._host.register_llm(judge)
            backend = goal_backend()
            if backend is None:
                self.task = asyncio.create_task(self._interpret(controller, steps))
            else:
                await self._hand_over(backend, controller, steps)
        finally:
            self._claim = None
            claim.set()

    async def _hand_over(
        self, backend: GoalBackend, controller: GoalController, steps: HostSteps
    ) -> None:
        """Start the remote run from the controller's snapshot; on failure record the end."""
        remote = RemoteRun(steps)
        self._remote = remote
        try:
            await backend.start(self._host.id, controller.snapshot(), remote.token)
        except Exception as exc:
            self._remote = None
            error = f"{type(exc).__name__}: {exc}"
            controller.advance(Stopped(reason=DRIVER_ERROR, error=error))
            await self._record_remaining(controller, steps)
            raise ConflictError(f"The goal could not be handed to its backend: {exc}") from exc

    # -- the built-in interpreter ---------------------------------------------------------------

    async def _interpret(self, controller: GoalController, steps: HostSteps) -> None:
        """Perform the controller's steps until it finishes; a cancel is answered `Stopped`."""
        self._started = True
        try:
            while not isinstance(step := controller.next(), Finish):
                try:
                    result = await steps.perform(step)
                except asyncio.CancelledError:
                    spent = steps.spent_in_run()
                    await steps.settle()
                    reason = self._cancel_reason or STOPPED
                    controller.advance(Stopped(reason=reason, agent_cost=spent))
                    await self._record_remaining(controller, steps)
                    raise
                except Exception as exc:
                    logger.exception("goal step %s failed", type(step).__name__)
                    result = Stopped(reason=DRIVER_ERROR, error=f"{type(exc).__name__}: {exc}")
                controller.advance(result)
        finally:
            self.outcome = controller.outcome
            if self.status is None or self.status.active:
                # Recording the end failed: at least keep the in-memory chip honest.
                self.status = controller.status()

    async def _record_remaining(self, controller: GoalController, steps: HostSteps) -> None:
        """Record the final status after a stop; a failure is logged, not raised."""
        while isinstance(step := controller.next(), RecordStatus):
            result: StepResult = Stopped(reason=DRIVER_ERROR)
            if self._record_end:
                try:
                    result = await steps.record(step)
                except Exception:
                    logger.exception("recording the goal's end failed")
            controller.advance(result)

    # -- remote runs ----------------------------------------------------------------------------

    async def _abandon_remote(self, reason: str) -> None:
        """The remote run did not record its end: record it here, and cancel the run."""
        self._remote = None
        await self._cancel_remote()
        if self.status is not None and self.status.active and self._record_end:
            await self._record(stopped_status(self.status, reason))

    async def _cancel_remote(self) -> None:
        backend = goal_backend()
        if backend is None:
            return
        try:
            await backend.cancel(self._host.id)
        except Exception:
            logger.exception("cancelling the goal run of %s failed", self._host.id)

    # -- statuses -------------------------------------------------------------------------------

    def _adopt_status(self, event: ConversationStateUpdateEvent) -> None:
        recording = self._recording
        if recording is not None and recording[0] == event.id:
            self.status = recording[1]
            return
        known = self.status.objective if self.status is not None else ""
        self.status = goal_status_from(event, self._host.events, objective=known)

    async def _record(self, status: GoalStatus) -> None:
        # The status readers see (GET /goal) is always one that is already on disk.
        event = self._writer.event(status)
        self._recording = (event.id, status)
        await self._host.append_event(event)
        self._writer.written(event)
        self.status = status
