"""`GoalDriver`: a conversation's goal on the server: start, stop, resume, its status.

Every rule is the SDK's `GoalController`'s; its steps are performed by a `StepRun` (`run.py`,
with `HostSteps`). Who interprets the steps is the server's backend's choice: this server
(`_interpret`, a short loop in an asyncio task) or a remote run (a Temporal workflow sending
each step to POST /goal/steps, see `remote.py`). Either way the goal's first status is on
disk before POST /goal answers, a stop or a user message ends it `interrupted` with that
reason, and the chip never shows `running` for a dead loop.

The driver's lifecycle is one field, `phase` (`GoalPhase`):

    IDLE --start/resume--> STARTING --first status on disk, handed over--> RUNNING
    STARTING --the first status could not be written / no backend took it--> IDLE
    RUNNING --stop, user message, shutdown, delete--> STOPPING --end recorded--> IDLE
    RUNNING --the goal completes or caps (its end recorded)--> IDLE
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from enum import StrEnum

from openhands.agent_server.errors import BadRequestError, ConflictError
from openhands.agent_server.goals.backend import GoalBackend
from openhands.agent_server.goals.host import GoalHost
from openhands.agent_server.goals.judges import default_judge, requested_judge
from openhands.agent_server.goals.remote import RemoteRun
from openhands.agent_server.goals.run import StepRun
from openhands.agent_server.goals.steps import HostSteps
from openhands.sdk.conversation.goal import (
    DriverStep,
    Finish,
    GoalController,
    GoalLimitsChange,
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
    resume_limits,
)
from openhands.sdk.conversation.goal.models import DRIVER_ERROR, STOPPED
from openhands.sdk.conversation.goal.status import (
    GOAL_STATE_KEY,
    last_goal_event,
    rewound_since_goal,
    stopped_status,
)
from openhands.sdk.conversation.goal.steps import RidingStep
from openhands.sdk.event import ConversationStateUpdateEvent, Event
from openhands.sdk.llm import LLM

logger = logging.getLogger(__name__)

DELETED = "conversation deleted"
"""Why the goal of a deleted conversation stops (nothing is recorded)."""


class GoalPhase(StrEnum):
    """Where a conversation's goal driver is in its lifecycle."""

    IDLE = "idle"
    """No goal is under way: none was started, or the last one's end is recorded."""
    STARTING = "starting"
    """A start or resume is recording the goal's first status and handing it over."""
    RUNNING = "running"
    """An interpreter (this server's task, or a remote run) drives the goal."""
    STOPPING = "stopping"
    """The interpreter was told to stop; it records the goal's end."""


ACTIVE_PHASES = frozenset({GoalPhase.STARTING, GoalPhase.RUNNING, GoalPhase.STOPPING})


class GoalDriver:
    """One conversation's goal: start, stop, resume, interrupt, and its latest status."""

    def __init__(self, host: GoalHost, backend: GoalBackend | None = None) -> None:
        """`backend` interprets the steps elsewhere (the server's, from `make_goal_backend`);
        None: this server does (the built-in driver)."""
        self._host = host
        self._backend = backend
        self.phase = GoalPhase.IDLE
        self._phase_moved = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        """The built-in interpreter of the current (or last) goal."""
        self.outcome: GoalOutcome | None = None
        self.status: GoalStatus | None = None
        self.judge_llm: LLM | None = None
        """The judge of the current (or last) goal; resume reuses it."""
        self._steps: HostSteps | None = None
        self._run: StepRun | None = None
        """The current (or last) goal's steps on this server, here or for a remote run."""
        # The default judge (a copy of the agent's LLM), reused so its usage accumulates.
        self._default_judge: LLM | None = None
        # Goal events hold the objective once; `_recording` is the one being appended now.
        self._writer = GoalStatusWriter()
        self._recording: tuple[str, GoalStatus] | None = None

    @property
    def active(self) -> bool:
        """True while a start is under way or an interpreter (here or remote) works on the goal."""
        return self.phase in ACTIVE_PHASES

    def _enter(self, phase: GoalPhase) -> None:
        """Move to `phase` and wake whoever waits for a move (`_until`)."""
        self.phase = phase
        self._phase_moved.set()
        self._phase_moved = asyncio.Event()

    async def _until(self, reached: Callable[[], bool]) -> None:
        while not reached():
            await self._phase_moved.wait()

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
        await self._wind_down()
        self._ensure_idle()
        judge = requested_judge(judge_llm) or self._default()
        controller = GoalController.from_request(request, judge, working_dir=self._host.working_dir)
        await self._go(controller, judge, resume=False)

    async def resume(
        self, *, judge_llm: LLM | None = None, limits: GoalLimitsChange | None = None
    ) -> None:
        """Continue an interrupted goal from its last status, with a resume prompt; a capped
        one with new `limits` (the rule: `goal.resuming`). `InvalidGoalError` names a limit
        that is invalid or leaves a capped goal no room."""
        await self._host.settle()
        await self._wind_down()
        self._ensure_idle()
        status = self.status
        try:
            new_limits = resume_limits(
                status, limits, start_hint="start a new goal with POST /goal instead"
            )
        except NoResumableGoalError as exc:
            raise BadRequestError(str(exc), code=NoResumableGoalError.code) from exc
        assert status is not None  # resume_limits refused a missing one
        judge = requested_judge(judge_llm) or self.judge_llm or self._default()
        try:
            controller = GoalController.from_status(
                status, judge, working_dir=self._host.working_dir, limits=new_limits
            )
        except ValueError as exc:
            raise BadRequestError(f"The goal cannot be resumed: {exc}") from exc
        await self._go(controller, judge, resume=True)

    async def stop(self) -> None:
        """End the goal `interrupted` (stopped by user) and pause the agent (it stops after
        its current step). The goal is told first, so the run's pause cannot end it another
        way."""
        if not await self._tell(STOPPED):
            return
        await self._host.pause()
        await self._ended(STOPPED)

    async def interrupt(self, reason: str) -> None:
        """End the goal `interrupted` with `reason`; recorded when this returns.

        The interpreter (this server's task, or the remote run told through its step) records
        the end; a remote run that does not within its backend's `stop_wait` is cancelled and
        the end is recorded here.
        """
        if await self._tell(reason):
            await self._ended(reason)

    async def discard(self) -> None:
        """Stop the goal without recording anything (its conversation was deleted)."""
        if not await self._tell(DELETED, discard=True):
            return
        run = self._run
        if isinstance(run, RemoteRun):
            await self._cancel_remote()
            run.finish()  # nothing is left for it to record
        await self._ended(DELETED)

    async def _tell(self, reason: str, *, discard: bool = False) -> bool:
        """Tell the interpreter to stop for `reason` (once), without waiting for it; False
        when no goal is under way."""
        await self._until(lambda: self.phase != GoalPhase.STARTING)  # let a start finish
        run = self._run
        if self.phase not in (GoalPhase.RUNNING, GoalPhase.STOPPING) or run is None:
            return False
        if discard:
            run.discard(reason)
        else:
            run.stop(reason)
        if self.phase == GoalPhase.RUNNING:
            self._enter(GoalPhase.STOPPING)
        return True

    async def _ended(self, reason: str) -> None:
        """Wait until the interpreter has recorded the end (see `interrupt`)."""
        run = self._run
        if not isinstance(run, RemoteRun):
            await self._until(lambda: not self.active)
            return
        wait = self._backend.stop_wait if self._backend is not None else 0.0
        try:
            await asyncio.wait_for(run.ended.wait(), wait)
        except TimeoutError:
            logger.warning("goal run of %s did not record its end; ending it", self._host.id)
            await self._abandon_remote(run, reason)

    async def perform_remote(
        self,
        run: str,
        step_id: str,
        step: DriverStep,
        wait: float,
        records: Sequence[RidingStep] = (),
    ) -> StepResult | None:
        """Perform a step sent by the goal's remote run `run`, after `records` (None:
        still under way after `wait` seconds; its result is pushed to the run when it ends).
        ConflictError when `run` does not drive this conversation's goal (it was stopped or
        replaced, or the server restarted)."""
        remote = self._run
        if not isinstance(remote, RemoteRun) or remote.token != run or remote.ended.is_set():
            raise ConflictError(
                f"Goal run {run} does not drive conversation {self._host.id} (it was stopped "
                "or replaced, or the server restarted); its steps are refused."
            )
        return await remote.perform_by_id(step_id, step, wait, records)

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

    async def _wind_down(self) -> None:
        """Let a run whose end is already recorded finish, instead of refusing the command.

        A client that saw the final status (`capped`, `complete`) may send its next command
        before the run, between recording that status and returning, is idle again; that
        command waits for it (a remote run at most its backend's `stop_wait`).
        """
        ending = self.phase in (GoalPhase.RUNNING, GoalPhase.STOPPING)
        if not ending or self.status is None or self.status.active:
            return
        wait = self._backend.stop_wait if self._backend is not None else None
        with contextlib.suppress(TimeoutError):  # still active: `_ensure_idle` refuses
            await asyncio.wait_for(self._until(lambda: not self.active), wait)

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

        No await between the idle check and STARTING: of two concurrent starts one claims.
        """
        self._enter(GoalPhase.STARTING)
        steps = HostSteps(self._host, judge, self._record, asyncio.get_running_loop())
        previous = self._steps
        self._steps = steps
        try:
            controller.begin(
                resume=resume,
                conversation_status=self._host.execution_status,
                rewound_to=rewound_since_goal(self._host.events) if resume else None,
            )
            first = controller.next()
            assert isinstance(first, RecordStatus)
            try:
                await steps.record(first)
            except BaseException:
                self._steps = previous  # nothing is on disk: the goal is as it was
                raise
            controller.advance(StatusRecorded())
            self.judge_llm, self.outcome = judge, None
            # Counted in the conversation's stats (persisted with it) once the goal started.
            self._host.register_llm(judge)
            if self._backend is None:
                run = self._run = StepRun(steps, self._run_ended)
                self.task = asyncio.create_task(self._interpret(controller, run))
            else:
                await self._hand_over(self._backend, controller, steps)
            # A remote run may have ended already while it was being started.
            ended = self._run is not None and self._run.ended.is_set()
            self._enter(GoalPhase.IDLE if ended else GoalPhase.RUNNING)
        finally:
            if self.phase == GoalPhase.STARTING:
                self._enter(GoalPhase.IDLE)

    async def _hand_over(
        self, backend: GoalBackend, controller: GoalController, steps: HostSteps
    ) -> None:
        """Start the remote run from the controller's snapshot; on failure record the end."""
        conversation_id = self._host.id

        async def notify(step_id: str) -> None:
            await backend.step_ended(conversation_id, step_id)

        remote = RemoteRun(steps, self._run_ended, notify)
        self._run = remote
        try:
            await backend.start(conversation_id, controller.snapshot(), remote.token)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            controller.advance(Stopped(reason=DRIVER_ERROR, error=error))
            await self._record_remaining(controller, remote)
            raise ConflictError(f"The goal could not be handed to its backend: {exc}") from exc

    def _run_ended(self) -> None:
        """The goal's end is recorded (or skipped, discarded): the driver is idle again."""
        if self.phase in (GoalPhase.RUNNING, GoalPhase.STOPPING):
            self._enter(GoalPhase.IDLE)

    # -- the built-in interpreter ---------------------------------------------------------------

    async def _interpret(self, controller: GoalController, run: StepRun) -> None:
        """Perform the controller's steps until it finishes (a stop is answered `Stopped` by
        the run, and the controller then records the end)."""
        try:
            while not isinstance(step := controller.next(), Finish):
                controller.advance(await run.perform(step))
        except asyncio.CancelledError:
            # Only the loop's own shutdown cancels this task: record the end if it can be.
            controller.advance(Stopped(reason=run.stop_reason or STOPPED))
            await self._record_remaining(controller, run)
            raise
        finally:
            self.outcome = controller.outcome
            if self.status is None or self.status.active:
                # Recording the end failed: at least keep the in-memory chip honest.
                self.status = controller.status()
            run.finish()

    async def _record_remaining(self, controller: GoalController, run: StepRun) -> None:
        """Record the final status after a stop or a failed hand-over; never raises."""
        while isinstance(step := controller.next(), RecordStatus):
            controller.advance(await run.perform(step))

    # -- remote runs ----------------------------------------------------------------------------

    async def _abandon_remote(self, run: RemoteRun, reason: str) -> None:
        """The remote run did not record its end: cancel it, and record the end here."""
        await self._cancel_remote()
        try:
            if self.status is not None and self.status.active and run.records:
                await self._record(stopped_status(self.status, reason))
        finally:
            run.finish()

    async def _cancel_remote(self) -> None:
        if self._backend is None:
            return
        try:
            await self._backend.cancel(self._host.id)
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
