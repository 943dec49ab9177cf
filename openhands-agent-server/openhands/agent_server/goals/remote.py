"""`RemoteRun`: a goal whose step machine runs elsewhere (a Temporal workflow), its steps here.

The remote interpreter sends each step to POST /goal/steps with an id of its own; the step is
performed by the same `HostSteps` as the built-in driver's. Its requests are idempotent: a
retried id (a worker died, a long poll ended) attaches to the step already under way, or gets
its result. A stop, a user message or a shutdown answers the step under way (or the next one)
`Stopped(reason)`: the remote controller then decides and records the end, as the built-in
one does when its task is cancelled.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import OrderedDict
from collections.abc import Sequence

from openhands.agent_server.goals.steps import HostSteps
from openhands.sdk.conversation.goal import DriverStep, RecordStatus, StepResult, Stopped

KEPT_STEPS = 16
"""How many recent steps' results a remote run keeps for retried requests."""


class RemoteRun:
    """One remote run of a goal: its token, its steps, and how it is told to stop."""

    def __init__(self, steps: HostSteps) -> None:
        self.token = uuid.uuid4().hex
        self.steps = steps
        self.ended = asyncio.Event()
        self._done: OrderedDict[str, asyncio.Task[StepResult]] = OrderedDict()
        self._stop = asyncio.Event()
        self._stop_reason: str | None = None

    async def perform(
        self,
        step_id: str,
        step: DriverStep,
        wait: float,
        records: Sequence[RecordStatus] = (),
    ) -> StepResult | None:
        """The result of step `step_id` (after recording `records`, the statuses decided just
        before it), or None if it is still under way after `wait` seconds."""
        task = self._done.get(step_id)
        if task is None:
            task = asyncio.ensure_future(self._perform(records, step))
            self._done[step_id] = task
            while len(self._done) > KEPT_STEPS:
                _, old = self._done.popitem(last=False)
                if old.done() and not old.cancelled():
                    old.exception()  # retrieved: nobody will ask for it again
        done, _ = await asyncio.wait({task}, timeout=max(0.0, wait))
        return task.result() if done else None

    def stop(self, reason: str) -> None:
        """Answer the step under way, and every later one but a record, `Stopped(reason)`."""
        if self._stop_reason is None:
            self._stop_reason = reason
            self._stop.set()

    async def _perform(self, records: Sequence[RecordStatus], step: DriverStep) -> StepResult:
        for record in records:
            await self._record(record)
        if isinstance(step, RecordStatus):
            return await self._record(step)
        if self._stop_reason is None:
            work = asyncio.ensure_future(self.steps.perform(step))
            stopping = asyncio.ensure_future(self._stop.wait())
            done, _ = await asyncio.wait({work, stopping}, return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            if work in done:
                return work.result()
            spent = self.steps.spent_in_run()
            work.cancel()
            await asyncio.wait({work})
            await self.steps.settle()
            return Stopped(reason=self._stop_reason or "", agent_cost=spent)
        return Stopped(reason=self._stop_reason)

    async def _record(self, step: RecordStatus) -> StepResult:
        result = await self.steps.record(step)
        if not step.status.active:
            self.ended.set()
        return result
