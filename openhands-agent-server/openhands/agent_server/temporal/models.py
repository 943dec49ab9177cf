"""What the goal workflow and its activity exchange: the SDK's own models, through Temporal's
pydantic data converter (client and worker use `temporalio.contrib.pydantic`).

No secret is ever here: the judge and the agent run on the agent server, which holds their
keys; workers only carry the server's session key (`OH_AGENT_SERVER_KEY`).
"""

from __future__ import annotations

from openhands.sdk.conversation.goal import GoalSnapshot
from openhands.sdk.conversation.goal.steps import DriverStep, RidingStep
from pydantic import BaseModel, Field

TASK_QUEUE = "openhands-goals"

STEP_ENDED = "step_ended"
"""The workflow's signal that a long step ended (`StepEnded`), sent by the agent server. It
carries no result: the workflow then asks the server for it, so whoever else can signal in the
namespace can wake a goal early, never hand it a result."""

STEP_WAIT_SECONDS = 2.0
"""How long one step call waits on the server for its step to end: a local activity lasts
seconds; a step that takes longer is signalled (`STEP_ENDED`) when it ends."""

RECHECK_SECONDS = 60.0
"""How long the workflow waits for a long step's signal before asking the server again (a
signal lost with a restarting Temporal or server costs this much, never the goal)."""


class ServerRef(BaseModel):
    """Which agent server and conversation a goal works on."""

    url: str
    conversation_id: str


class GoalRun(BaseModel):
    """The workflow's start: where the goal lives, the run's token, the controller's state."""

    server: ServerRef
    run: str = Field(description="The token the server gave this run; every step carries it.")
    snapshot: GoalSnapshot
    step_wait: float = Field(
        default=STEP_WAIT_SECONDS, gt=0, le=10, description="See `STEP_WAIT_SECONDS`."
    )
    recheck: float = Field(default=RECHECK_SECONDS, gt=0, description="See `RECHECK_SECONDS`.")


class StepCall(BaseModel):
    """One call for one step: record `records`, then perform `step` (id `step_id`) on the
    server, waiting up to `wait` seconds for its result (else it is signalled)."""

    server: ServerRef
    run: str
    step_id: str
    records: list[RidingStep] = Field(default_factory=list)
    step: DriverStep
    wait: float


class StepEnded(BaseModel):
    """The `STEP_ENDED` signal: a step that outlasted its call's `wait` has ended."""

    step_id: str
