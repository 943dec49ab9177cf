"""`TemporalGoalBackend`: the agent server's side of goals on Temporal: start a workflow per
goal, cancel it to stop."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from openhands.agent_server.temporal.models import GoalInput, ServerRef
from temporalio.client import Client

if TYPE_CHECKING:
    from openhands.agent_server.config import ServerConfig
    from openhands.sdk.conversation.goal import GoalStatus
    from openhands.sdk.llm import LLM


def run_id_for(conversation_id: uuid.UUID) -> str:
    """A conversation's goal workflow id: one goal runs at a time, so a restarted server
    finds (and can stop) the workflow of a goal its log shows running."""
    return f"goal-{conversation_id}"


class TemporalGoalBackend:
    """One Temporal client per server, connected on first use."""

    def __init__(self, config: ServerConfig) -> None:
        self._address = config.temporal_address
        self._namespace = config.temporal_namespace
        self._queue = config.temporal_task_queue
        host = "127.0.0.1" if config.host in ("0.0.0.0", "::") else config.host
        self._public_url = (config.public_url or f"http://{host}:{config.port}").rstrip("/")
        self._client: Client | None = None

    async def _connect(self) -> Client:
        if self._client is None:
            self._client = await Client.connect(self._address, namespace=self._namespace)
        return self._client

    async def start(
        self,
        conversation_id: uuid.UUID,
        status: GoalStatus,
        judge: LLM,
        working_dir: str,
        *,
        resume: bool,
    ) -> str:
        client = await self._connect()
        run_id = run_id_for(conversation_id)
        # The judge's key stays out of the workflow's history: workers use their own.
        spec = judge.model_dump(mode="json", exclude={"api_key"})
        start = GoalInput(
            server=ServerRef(url=self._public_url, conversation_id=str(conversation_id)),
            status=status.model_dump(mode="json"),
            judge=spec,
            working_dir=working_dir,
            resume=resume,
        )
        await client.start_workflow("GoalWorkflow", start, id=run_id, task_queue=self._queue)
        return run_id

    def run_id(self, conversation_id: uuid.UUID) -> str:
        return run_id_for(conversation_id)

    async def cancel(self, run_id: str) -> None:
        client = await self._connect()
        await client.get_workflow_handle(run_id).cancel()
