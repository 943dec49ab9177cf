"""`HostSteps`: how the server performs each step of a goal on a live conversation.

One I/O function per step of the SDK's step machine (`openhands.sdk.conversation.goal.steps`):
record the status, send the message and run the agent (pausing it when the step's limit is
reached), wait for a person's approval, run verify and ask the judge in run threads. The
built-in driver and a remote run (a Temporal workflow calling POST /goal/steps) use the same
functions, so a goal behaves the same whoever interprets its steps. No rule is decided here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from openhands.agent_server.errors import BadRequestError
from openhands.agent_server.goals.host import GoalHost
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.conversation.goal import (
    ApprovalDecided,
    AskJudge,
    AwaitApproval,
    DriverStep,
    GoalJudge,
    GoalStatus,
    Judged,
    MessageRefused,
    RecordStatus,
    RunAgent,
    RunEnded,
    RunVerify,
    RunWatch,
    StatusRecorded,
    StepResult,
    Verified,
    perform_verify,
)
from openhands.sdk.event import ConversationStateUpdateEvent, Event
from openhands.sdk.llm import LLM

logger = logging.getLogger(__name__)

Status = ConversationExecutionStatus
Record = Callable[[GoalStatus], Coroutine[Any, Any, None]]
"""How a status is recorded (the driver's, so GET /goal follows what is on disk)."""


class HostSteps:
    """Performs the steps of one goal on `host`; `on_event` must see every appended event."""

    def __init__(
        self,
        host: GoalHost,
        judge: LLM,
        record: Record,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self._host = host
        self._judge = GoalJudge(judge)
        self._record = record
        self._loop = loop
        self._perform: dict[type, Callable[[Any], Awaitable[StepResult]]] = {
            RecordStatus: self.record,
            RunAgent: self.run,
            AwaitApproval: self.await_approval,
            RunVerify: self.verify,
            AskJudge: self.judge,
        }
        self._status_changed = asyncio.Event()
        self._watch: RunWatch | None = None
        self._cost_before = 0.0
        # The agent's cost when the run under way began; None once a run ended normally.
        self._run_before: float | None = None
        self._inflight: asyncio.Future[None] | None = None
        self._pause: asyncio.Future[None] | None = None

    @property
    def judge_llm(self) -> LLM:
        """The goal's judge."""
        return self._judge.llm

    async def perform(self, step: DriverStep) -> StepResult:
        """Perform one step and return its result."""
        return await self._perform[type(step)](step)

    # -- the steps ----------------------------------------------------------------------------

    async def record(self, step: RecordStatus) -> StatusRecorded:
        """Record the status (on disk before this returns)."""
        await self._write(self._record(step.status))
        return StatusRecorded()

    async def run(self, step: RunAgent) -> RunEnded | MessageRefused:
        """Send the message (if any), run the agent in a run thread until its run ends,
        pausing it when the step's time or cost limit is reached."""
        host = self._host
        if step.message is not None:
            try:
                await self._write(host.send_goal_message(step.message))
            except BadRequestError as exc:  # a UserPromptSubmit hook refused it
                return MessageRefused(error=exc.message)
        watch = RunWatch(step)
        before = self._run_before = host.agent_cost()
        timer: asyncio.TimerHandle | None = None
        if watch.watching:
            self._watch, self._cost_before = watch, before
        if step.time_left is not None:
            timer = self._loop.call_later(max(0.0, step.time_left), self._time_up, watch)
        try:
            end = await host.run_agent()
        finally:
            self._watch = None
            if timer is not None:
                timer.cancel()
        self._run_before = None  # reported below; a run cut short is reported by spent_in_run
        return RunEnded.of(end, agent_cost=host.agent_cost() - before, limit=watch.reached)

    async def await_approval(self, step: AwaitApproval) -> ApprovalDecided:
        """Wait until a person answers the pending tool calls (POST .../respond_to_confirmation
        never runs the agent while a goal drives it) or pauses the conversation."""
        waiting = Status.WAITING_FOR_CONFIRMATION
        while self._host.execution_status == waiting:
            self._status_changed.clear()
            if self._host.execution_status != waiting:
                break
            await self._status_changed.wait()
        return ApprovalDecided(status=self._host.execution_status)

    async def verify(self, step: RunVerify) -> Verified:
        """Run the verify command in a run thread."""
        result = await self._host.blocking(perform_verify, step)
        return Verified(result=result, conversation_status=self._host.execution_status)

    async def judge(self, step: AskJudge) -> Judged:
        """Ask the judge in a run thread (only events added since its last call are rendered)."""
        answer = await self._host.blocking(self._judge.answer, step, self._host.events)
        return Judged.of(answer, self._host.execution_status)

    # -- around the steps ---------------------------------------------------------------------

    def spent_in_run(self) -> float:
        """What the agent spent in the run under way (for a run cut short)."""
        if self._run_before is None:
            return 0.0
        return max(0.0, self._host.agent_cost() - self._run_before)

    async def settle(self) -> None:
        """Wait for a write cut short by a cancel, so a final status is appended after it."""
        inflight = self._inflight
        if inflight is None:
            return
        if not inflight.done():
            await asyncio.wait({inflight})
        if not inflight.cancelled():
            # The step is over, so the write's own failure (a hook refusing the message) no
            # longer matters; retrieving it keeps asyncio from logging it as lost.
            inflight.exception()

    def on_event(self, event: Event) -> None:
        """Called in whichever thread appended `event`: the run's spending, status changes."""
        if isinstance(event, ConversationStateUpdateEvent) and event.key == "execution_status":
            self._loop.call_soon_threadsafe(self._status_changed.set)
        watch = self._watch
        if (
            watch is not None
            and watch.reached is None
            and watch.spent(self._host.agent_cost() - self._cost_before) is not None
        ):
            self._host.request_pause()

    async def _write(self, operation: Coroutine[Any, Any, None]) -> None:
        """A conversation write that must finish even if the step is cancelled."""
        self._inflight = asyncio.ensure_future(operation)
        await asyncio.shield(self._inflight)

    def _time_up(self, watch: RunWatch) -> None:
        if self._watch is watch and watch.time_up() is not None:
            self._pause = asyncio.ensure_future(self._host.pause())
