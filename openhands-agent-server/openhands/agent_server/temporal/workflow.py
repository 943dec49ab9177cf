"""`GoalWorkflow`: a goal's step machine as a Temporal workflow; the agent server performs the steps.

The workflow is an interpreter like `run_goal` and the built-in driver: it restores the SDK's
`GoalController` from the snapshot the server handed over, reading time only through the
workflow's clock so a replay decides the same, and sends each step to the server (the
`perform_step` activity, run as a local activity: no round trip through Temporal's matching per
step) until the controller finishes; the statuses it decides ride with the next step. Every
rule is the controller's; a step the server refuses is answered `Stopped(driver error)`. Long
histories continue as new from the controller's snapshot.
"""

from __future__ import annotations

import contextlib
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from openhands.agent_server.temporal import activities
    from openhands.agent_server.temporal.models import GoalRun, StepCall
    from openhands.sdk.conversation.goal import (
        DriverStep,
        Finish,
        GoalController,
        GoalOutcome,
        RecordStatus,
        StatusRecorded,
        StepResult,
        Stopped,
    )
    from openhands.sdk.conversation.goal.models import DRIVER_ERROR

RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=10))
CALL_TIMEOUT = timedelta(seconds=activities.POLL_SECONDS + 60)


def _cause(error: BaseException) -> str:
    """The innermost message of an activity failure."""
    while error.__cause__ is not None:
        error = error.__cause__
    return str(error) or type(error).__name__


@workflow.defn(name="GoalWorkflow")
class GoalWorkflow:
    """Drives one goal until it completes, caps or is interrupted; returns its outcome."""

    @workflow.run
    async def run(self, start: GoalRun) -> GoalOutcome | None:
        controller = GoalController.restore(start.snapshot, clock=workflow.time)
        calls = _Calls(start)
        held: list[RecordStatus] = []
        while True:
            step = controller.next()
            if isinstance(step, RecordStatus):
                # A status rides with the next step: one call instead of two.
                held.append(step)
                controller.advance(StatusRecorded())
                continue
            if isinstance(step, Finish):
                if held:
                    # If the end cannot be recorded, nothing is left to do either way.
                    with contextlib.suppress(ActivityError):
                        await calls.perform(held[-1], held[:-1])
                return step.outcome
            try:
                result = await calls.perform(step, held)
            except ActivityError as exc:
                result = Stopped(reason=DRIVER_ERROR, error=_cause(exc))
            held = []
            controller.advance(result)
            if workflow.info().is_continue_as_new_suggested():
                snapshot = controller.snapshot()
                workflow.continue_as_new(start.model_copy(update={"snapshot": snapshot}))


class _Calls:
    """The steps of one workflow run, each sent to the agent server under its own id."""

    def __init__(self, start: GoalRun) -> None:
        self._start = start
        self._count = 0

    async def perform(self, step: DriverStep, records: list[RecordStatus]) -> StepResult:
        info = workflow.info()
        self._count += 1
        call = StepCall(
            server=self._start.server,
            run=self._start.run,
            step_id=f"{info.workflow_id}/{info.run_id}/{self._count}",
            records=records,
            step=step,
            wait=activities.POLL_SECONDS,
        )
        while True:
            answer = await workflow.execute_local_activity_method(
                activities.StepActivities.perform_step,
                call,
                start_to_close_timeout=CALL_TIMEOUT,
                retry_policy=RETRY,
            )
            if answer.result is not None:
                return answer.result
