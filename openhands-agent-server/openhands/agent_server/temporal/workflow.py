"""`GoalWorkflow`: a goal's step machine as a Temporal workflow; the agent server performs the steps.

The workflow is an interpreter like `run_goal` and the built-in driver: it restores the SDK's
`GoalController` from the snapshot the server handed over, reading time only through the
workflow's clock so a replay decides the same, and sends each step to the server until the
controller finishes; the statuses and workspace snapshots it decides ride with the next step. Every rule is the
controller's; a step the server refuses is answered `Stopped(driver error)`. Long histories
continue as new from the controller's snapshot.

How a step travels, as Temporal recommends for short and long work:
- the `perform_step` local activity asks the server to perform it and waits a few seconds
  (`GoalRun.step_wait`): a status, a checkpoint, a quick verify come back in it, with no
  round trip through Temporal's task matching;
- a step that outlasts that (an agent's run, a judge call, a person's approval) is followed
  by a `STEP_ENDED` signal from the server when it ends; meanwhile no worker thread and no
  workflow task is held. The signal only wakes the workflow: it asks the server again with
  the same step id and gets the kept result, so a result never comes from anyone but the
  agent server. Should a signal be lost, the workflow asks again after `GoalRun.recheck`
  seconds all the same.
"""

from __future__ import annotations

import contextlib
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from openhands.agent_server.temporal import activities
    from openhands.agent_server.temporal.models import STEP_ENDED, GoalRun, StepCall, StepEnded
    from openhands.sdk.conversation.goal import (
        CheckpointTaken,
        DriverStep,
        Finish,
        GoalController,
        GoalOutcome,
        RecordStatus,
        StatusRecorded,
        StepResult,
        Stopped,
        TakeCheckpoint,
    )
    from openhands.sdk.conversation.goal.models import DRIVER_ERROR
    from openhands.sdk.conversation.goal.steps import RidingStep

RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=10))

STEP_FAILED = (ActivityError, ApplicationError)
"""How a step call that failed for good reaches the workflow (a local activity's failure
arrives as the activity's own `ApplicationError`, not wrapped in an `ActivityError`)."""


def _cause(error: BaseException) -> str:
    """The innermost message of an activity failure."""
    while error.__cause__ is not None:
        error = error.__cause__
    return str(error) or type(error).__name__


@workflow.defn(name="GoalWorkflow")
class GoalWorkflow:
    """Drives one goal until it completes, caps or is interrupted; returns its outcome."""

    def __init__(self) -> None:
        self._ended: set[str] = set()
        self._count = 0

    @workflow.signal(name=STEP_ENDED)
    def step_ended(self, ended: StepEnded) -> None:
        """The server's word that a long step ended: ask it for the result."""
        self._ended.add(ended.step_id)

    @workflow.run
    async def run(self, start: GoalRun) -> GoalOutcome | None:
        controller = GoalController.restore(start.snapshot, clock=workflow.time)
        held: list[RidingStep] = []
        while True:
            step = controller.next()
            if isinstance(step, RecordStatus | TakeCheckpoint):
                # A status or a snapshot rides with the next step: one call instead of two
                # (its result never changes the controller's next decision).
                held.append(step)
                controller.advance(
                    StatusRecorded() if isinstance(step, RecordStatus) else CheckpointTaken()
                )
                continue
            if isinstance(step, Finish):
                if held:
                    # If the end cannot be recorded, nothing is left to do either way.
                    with contextlib.suppress(*STEP_FAILED):
                        await self._perform(start, held[-1], held[:-1])
                return step.outcome
            try:
                result = await self._perform(start, step, held)
            except STEP_FAILED as exc:
                result = Stopped(reason=DRIVER_ERROR, error=_cause(exc))
            held = []
            controller.advance(result)
            if workflow.info().is_continue_as_new_suggested():
                snapshot = controller.snapshot()
                workflow.continue_as_new(start.model_copy(update={"snapshot": snapshot}))

    async def _perform(
        self, start: GoalRun, step: DriverStep, records: list[RidingStep]
    ) -> StepResult:
        """One step on the server: its result from the call, or from the server's signal."""
        info = workflow.info()
        self._count += 1
        call = StepCall(
            server=start.server,
            run=start.run,
            step_id=f"{info.workflow_id}/{info.run_id}/{self._count}",
            records=records,
            step=step,
            wait=start.step_wait,
        )
        timeout = timedelta(seconds=start.step_wait + activities.CALL_SLACK_SECONDS)
        while True:
            answer = await workflow.execute_local_activity_method(
                activities.StepActivities.perform_step,
                call,
                start_to_close_timeout=timeout,
                retry_policy=RETRY,
            )
            if answer.result is not None:
                self._ended.discard(call.step_id)
                return answer.result
            # No result yet: wait for the server's word (or `recheck`), then ask again.
            with contextlib.suppress(TimeoutError):
                await workflow.wait_condition(
                    lambda: call.step_id in self._ended,
                    timeout=timedelta(seconds=start.recheck),
                )
            self._ended.discard(call.step_id)
