"""`GoalWorkflow`: one goal on one conversation, as a Temporal workflow.

Every decision is the SDK's `GoalController`'s, fed with activity results and the workflow's
own clock (`workflow.time()`), so a replay takes the same decisions. The workflow does no I/O:
sending the round, running the agent, verify, the judge and recording each status are
activities. A cancellation (POST /goal/stop) records the goal `interrupted`.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import CancelledError

with workflow.unsafe.imports_passed_through():
    from openhands.agent_server.temporal import activities
    from openhands.agent_server.temporal.models import (
        GoalInput,
        JudgeRequest,
        RoundRun,
        StatusRecord,
        VerifyRequest,
    )
    from openhands.sdk.conversation.goal import GoalController, GoalDone, GoalStatus, RunEnd
    from openhands.sdk.conversation.goal.models import (
        DRIVER_ERROR,
        STOPPED,
        GoalVerdict,
        VerifyResult,
    )
    from openhands.sdk.conversation.state import ConversationExecutionStatus
    from openhands.sdk.llm import LLM

SHORT = timedelta(minutes=2)


def _cancelled(exc: BaseException) -> bool:
    """Whether `exc` is (or was caused by) the workflow's cancellation."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, asyncio.CancelledError | CancelledError):
            return True
        seen = seen.__cause__
    return False


RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=10))
ROUND_TIMEOUT = timedelta(hours=6)
HEARTBEAT = timedelta(seconds=20)


@workflow.defn(name="GoalWorkflow")
class GoalWorkflow:
    """Drives one goal until it completes, caps or is interrupted; returns the final status."""

    @workflow.run
    async def run(self, start: GoalInput) -> dict[str, Any]:
        status = GoalStatus.model_validate(start.status)
        judge = LLM.model_validate(start.judge)
        controller = GoalController.from_status(
            status, judge, working_dir=start.working_dir, clock=workflow.time
        )
        message = controller.resume_prompt() if start.resume else controller.start()
        try:
            await self._record(start, controller.running_status())
            while True:
                end = await workflow.execute_activity(
                    activities.run_round,
                    RoundRun(server=start.server, message=message),
                    start_to_close_timeout=ROUND_TIMEOUT,
                    heartbeat_timeout=HEARTBEAT,
                    retry_policy=RETRY,
                )
                run_end = RunEnd(
                    status=ConversationExecutionStatus(end.status), error=end.error, code=end.code
                )
                interruption = controller.classify_run_end(run_end)
                if interruption is not None:
                    outcome = controller.interrupt(interruption, agent_cost=end.agent_cost)
                    return await self._end(start, controller, outcome)
                verify = await self._verify(start, controller)
                controller.enter_phase("judging")
                await self._record(start, controller.running_status())
                answer = await workflow.execute_activity(
                    activities.judge_round,
                    JudgeRequest(
                        server=start.server,
                        objective=controller.objective,
                        judge=start.judge,
                        verify=verify.model_dump(mode="json") if verify else None,
                    ),
                    start_to_close_timeout=timedelta(minutes=15),
                    heartbeat_timeout=HEARTBEAT,
                    retry_policy=RETRY,
                )
                step = controller.record_round(
                    GoalVerdict.model_validate(answer.verdict),
                    verify=verify,
                    judge_error=answer.error,
                    agent_cost=end.agent_cost,
                    judge_cost=answer.cost,
                )
                if isinstance(step, GoalDone):
                    return await self._end(start, controller, step.outcome)
                await self._record(start, controller.running_status())
                message = step.followup
        except BaseException as exc:
            # A stop (cancellation, which an awaited activity reports as an ActivityError) or
            # a failure: record it, so the chip never shows a dead goal as running.
            if _cancelled(exc):
                outcome = controller.interrupted(None, reason=STOPPED)
            else:
                outcome = controller.interrupted(
                    f"{type(exc).__name__}: {exc}", reason=DRIVER_ERROR
                )
            await self._end(start, controller, outcome)
            raise

    async def _verify(self, start: GoalInput, controller: GoalController) -> VerifyResult | None:
        command = controller.verify_command
        if command is None:
            return None
        controller.enter_phase("verifying")
        await self._record(start, controller.running_status())
        timeout = 600.0
        result = await workflow.execute_activity(
            activities.run_verify,
            VerifyRequest(
                server=start.server,
                command=command,
                working_dir=start.working_dir,
                timeout=timeout,
            ),
            start_to_close_timeout=timedelta(seconds=timeout + 120),
            heartbeat_timeout=HEARTBEAT,
            retry_policy=RETRY,
        )
        return VerifyResult.model_validate(result)

    async def _record(self, start: GoalInput, status: GoalStatus) -> None:
        await workflow.execute_activity(
            activities.record_status,
            StatusRecord(server=start.server, status=status.model_dump(mode="json")),
            start_to_close_timeout=SHORT,
            retry_policy=RETRY,
        )

    async def _end(
        self, start: GoalInput, controller: GoalController, outcome: Any
    ) -> dict[str, Any]:
        final = controller.final_status(outcome)
        await self._record(start, final)
        return final.model_dump(mode="json")
