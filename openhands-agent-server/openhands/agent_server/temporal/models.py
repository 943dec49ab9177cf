"""What the goal workflow and its activity exchange: the SDK's own models, through Temporal's
pydantic data converter (client and worker use `temporalio.contrib.pydantic`).

No secret is ever here: the judge and the agent run on the agent server, which holds their
keys; workers only carry the server's session key (`OH_AGENT_SERVER_KEY`).
"""

from __future__ import annotations

from openhands.sdk.conversation.goal import GoalSnapshot
from openhands.sdk.conversation.goal.steps import DriverStep, RecordStatus
from pydantic import BaseModel, Field

TASK_QUEUE = "openhands-goals"


class ServerRef(BaseModel):
    """Which agent server and conversation a goal works on."""

    url: str
    conversation_id: str


class GoalRun(BaseModel):
    """The workflow's start: where the goal lives, the run's token, the controller's state."""

    server: ServerRef
    run: str = Field(description="The token the server gave this run; every step carries it.")
    snapshot: GoalSnapshot


class StepCall(BaseModel):
    """One long poll for one step: record `records`, then perform `step` (id `step_id`) on the
    server, waiting up to `wait` seconds for its result."""

    server: ServerRef
    run: str
    step_id: str
    records: list[RecordStatus] = Field(default_factory=list)
    step: DriverStep
    wait: float
