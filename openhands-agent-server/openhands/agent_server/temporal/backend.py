"""`TemporalGoalBackend`: the agent server's side of goals on Temporal: start a workflow per
goal run from the controller's snapshot, signal it the result of a step that outlasted its
call, terminate it when the goal is abandoned."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import TYPE_CHECKING

from openhands.agent_server.temporal.models import STEP_ENDED, GoalRun, ServerRef, StepEnded
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.service import RPCError, RPCStatusCode

if TYPE_CHECKING:
    from openhands.agent_server.config import ServerConfig
    from openhands.sdk.conversation.goal import GoalSnapshot


def run_id_for(conversation_id: uuid.UUID) -> str:
    """A conversation's goal workflow id: one goal runs at a time, so a new run replaces a
    stale one (e.g. left behind by a restart) and a deleted conversation's run is found."""
    return f"goal-{conversation_id}"


class TemporalGoalBackend:
    """One Temporal client per server (pydantic data converter), connected on first use."""

    def __init__(self, config: ServerConfig) -> None:
        self._address = config.temporal_address
        self._namespace = config.temporal_namespace
        self._queue = config.temporal_task_queue
        self._stop_wait = config.temporal_stop_seconds
        self._step_wait = config.temporal_step_wait_seconds
        self._recheck = config.temporal_recheck_seconds
        self._task_timeout = timedelta(seconds=config.temporal_task_timeout_seconds)
        host = "127.0.0.1" if config.host in ("0.0.0.0", "::") else config.host
        self._public_url = (config.public_url or f"http://{host}:{config.port}").rstrip("/")
        self._client: Client | None = None

    @property
    def stop_wait(self) -> float:
        """Seconds a stop waits for the workflow to record the goal's end."""
        return self._stop_wait

    async def _connect(self) -> Client:
        if self._client is None:
            self._client = await Client.connect(
                self._address, namespace=self._namespace, data_converter=pydantic_data_converter
            )
        return self._client

    async def start(self, conversation_id: uuid.UUID, snapshot: GoalSnapshot, run: str) -> None:
        """Start the goal's workflow, replacing a stale one of the same conversation."""
        client = await self._connect()
        start = GoalRun(
            server=ServerRef(url=self._public_url, conversation_id=str(conversation_id)),
            run=run,
            snapshot=snapshot,
            step_wait=self._step_wait,
            recheck=self._recheck,
        )
        await client.start_workflow(
            "GoalWorkflow",
            start,
            id=run_id_for(conversation_id),
            task_queue=self._queue,
            id_conflict_policy=WorkflowIDConflictPolicy.TERMINATE_EXISTING,
            task_timeout=self._task_timeout,
        )

    async def step_ended(self, conversation_id: uuid.UUID, step_id: str) -> None:
        """Signal the conversation's goal workflow that step `step_id` ended (it then asks for
        the result); a workflow that is gone (ended, replaced by a newer run) needs nothing."""
        client = await self._connect()
        handle = client.get_workflow_handle(run_id_for(conversation_id))
        try:
            await handle.signal(STEP_ENDED, StepEnded(step_id=step_id))
        except RPCError as exc:
            if exc.status != RPCStatusCode.NOT_FOUND:
                raise

    async def cancel(self, conversation_id: uuid.UUID) -> None:
        """Terminate the conversation's goal workflow (none running: nothing to do)."""
        client = await self._connect()
        handle = client.get_workflow_handle(run_id_for(conversation_id))
        try:
            await handle.terminate(reason="the goal was abandoned by its agent server")
        except RPCError as exc:
            if exc.status != RPCStatusCode.NOT_FOUND:
                raise
