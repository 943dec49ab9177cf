"""`RemoteRun`: a goal whose step machine runs elsewhere (a Temporal workflow), its steps here.

The remote interpreter sends each step to POST /goal/steps with an id of its own and a `wait`
of a few seconds; the step is performed by the same `StepRun` as the built-in driver's. A
step that ends within the wait is the answer; one that goes on (an agent's run, a judge call,
a person's approval) is answered null, and the interpreter is told when it ends
(`GoalBackend.step_ended`: a signal to the workflow, which then asks again and gets the
result), so nobody holds a request or a thread while an agent works. Requests are idempotent: a retried id (a worker died, a lost
signal) attaches to the step already under way, or gets its result.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence

from openhands.agent_server.goals.run import StepRun
from openhands.agent_server.goals.steps import HostSteps
from openhands.sdk.conversation.goal import DriverStep, StepResult, Stopped
from openhands.sdk.conversation.goal.steps import RidingStep

logger = logging.getLogger(__name__)

KEPT_STEPS = 16
"""How many recent steps' results a remote run keeps for retried requests."""

Notify = Callable[[str], Awaitable[None]]
"""Tells the remote interpreter that a step (by id) has ended."""


class RemoteRun(StepRun):
    """One remote run of a goal: its token, its steps by id, and who hears of a long step."""

    def __init__(self, steps: HostSteps, on_end: Callable[[], None], notify: Notify) -> None:
        super().__init__(steps, on_end)
        self.token = uuid.uuid4().hex
        self._notify = notify
        self._done: OrderedDict[str, asyncio.Task[StepResult]] = OrderedDict()
        self._pushes: set[asyncio.Task[None]] = set()
        self._pushed: set[str] = set()  # steps whose result is pushed when they end

    async def perform_by_id(
        self,
        step_id: str,
        step: DriverStep,
        wait: float,
        records: Sequence[RidingStep] = (),
    ) -> StepResult | None:
        """The result of step `step_id` (after performing `records`, the statuses and
        snapshots decided just before it), or None if it is still under way after `wait` seconds: its result is then
        pushed when it ends."""
        task = self._done.get(step_id)
        if task is None:
            task = asyncio.ensure_future(self._perform(records, step))
            self._done[step_id] = task
            while len(self._done) > KEPT_STEPS:
                self._done.popitem(last=False)
        done, _ = await asyncio.wait({task}, timeout=max(0.0, wait))
        if done:
            return task.result()
        if step_id not in self._pushed:
            self._pushed.add(step_id)
            task.add_done_callback(lambda finished: self._push(step_id, finished))
        return None

    async def _perform(self, records: Sequence[RidingStep], step: DriverStep) -> StepResult:
        for record in records:
            recorded = await self.perform(record)
            if isinstance(recorded, Stopped):
                return recorded  # not done (stopped, failed, discarded): nor is the step
        return await self.perform(step)

    def _push(self, step_id: str, finished: asyncio.Task[StepResult]) -> None:
        self._pushed.discard(step_id)
        if finished.cancelled():
            return
        push = asyncio.ensure_future(self._send(step_id))
        self._pushes.add(push)
        push.add_done_callback(self._pushes.discard)

    async def _send(self, step_id: str) -> None:
        try:
            await self._notify(step_id)
        except Exception as exc:
            # The interpreter asks again after a while (same id) all the same.
            logger.warning("telling the goal run that step %s ended failed: %s", step_id, exc)
