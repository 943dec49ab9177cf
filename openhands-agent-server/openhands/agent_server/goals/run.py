"""`StepRun`: one run of a goal's steps on this server, whoever decides them.

The built-in interpreter (`GoalDriver._interpret`) and a remote one (`RemoteRun`, a Temporal
workflow sending steps to POST /goal/steps) both perform the controller's steps through a
`StepRun`: it records statuses, performs every other step with `HostSteps` raced against a
stop, and knows when the goal's end is on record. A stop (the user, a user message, a
shutdown, a deletion) answers the step under way, and every later one but a record,
`Stopped(reason)`; the interpreter's controller then decides and records the end. A step that
fails is answered `Stopped(driver error)`, as by every driver.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from openhands.agent_server.goals.steps import HostSteps
from openhands.sdk.conversation.goal import DriverStep, RecordStatus, StepResult, Stopped
from openhands.sdk.conversation.goal.models import DRIVER_ERROR

logger = logging.getLogger(__name__)


class StepRun:
    """Performs one goal run's steps on this server until its end is recorded (`ended`)."""

    def __init__(self, steps: HostSteps, on_end: Callable[[], None]) -> None:
        self.steps = steps
        self.ended = asyncio.Event()
        """Set once the goal's final (inactive) status is recorded, or skipped when discarded."""
        self._on_end = on_end
        self._stop = asyncio.Event()
        self._stop_reason: str | None = None
        self._records = True

    @property
    def records(self) -> bool:
        """False once discarded: statuses are no longer recorded."""
        return self._records

    @property
    def stop_reason(self) -> str | None:
        """Why the run was told to stop (None: it was not)."""
        return self._stop_reason

    def stop(self, reason: str) -> None:
        """Answer the step under way, and every later one but a record, `Stopped(reason)`."""
        if self._stop_reason is None:
            self._stop_reason = reason
            self._stop.set()

    def discard(self, reason: str) -> None:
        """`stop`, and record nothing more: the goal's conversation is gone."""
        self._records = False
        self.stop(reason)

    async def perform(self, step: DriverStep) -> StepResult:
        """Perform one step; a stop, or a failure, is answered `Stopped`."""
        try:
            if isinstance(step, RecordStatus):
                return await self.record(step)
            if self._stop_reason is None:
                return await self._raced(step)
        except Exception as exc:
            logger.exception("goal step %s failed", type(step).__name__)
            return Stopped(reason=DRIVER_ERROR, error=f"{type(exc).__name__}: {exc}")
        return Stopped(reason=self._stop_reason)

    async def record(self, step: RecordStatus) -> StepResult:
        """Record a status (unless discarded); the final one ends the run."""
        try:
            if not self._records:
                return Stopped(reason=DRIVER_ERROR, error="the conversation was deleted")
            return await self.steps.record(step)
        finally:
            if not step.status.active:
                self.finish()

    async def _raced(self, step: DriverStep) -> StepResult:
        work = asyncio.ensure_future(self.steps.perform(step))
        stopping = asyncio.ensure_future(self._stop.wait())
        try:
            await asyncio.wait({work, stopping}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            work.cancel()  # the interpreter itself is cancelled (the loop shuts down)
            raise
        finally:
            stopping.cancel()
        if self._stop_reason is None:
            return work.result()
        # Stopped (even if the step ended at the same moment: a stop is told before it pauses
        # the agent, so the paused run must not end the goal another way).
        spent = self.steps.spent_in_run()
        work.cancel()
        await asyncio.wait({work})
        if not work.cancelled():
            work.exception()  # the step's own end no longer matters
        await self.steps.settle()
        return Stopped(reason=self._stop_reason, agent_cost=spent)

    def finish(self) -> None:
        """The run is over (its end recorded, or given up on): set `ended`, tell the owner."""
        if not self.ended.is_set():
            self.ended.set()
            self._on_end()
