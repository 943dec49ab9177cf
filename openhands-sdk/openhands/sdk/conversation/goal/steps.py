"""The goal loop's steps: what `GoalController` asks its driver to do, and what the driver reports.

A driver is an interpreter: `step = controller.next()`, perform it, `controller.advance(result)`,
until the step is `Finish`. Steps and results are small pydantic models with a `kind`, so they
cross any boundary unchanged (a workflow's history, an HTTP body). The controller decides every
rule; a step only carries what its driver must do or watch mechanically:

| step | the driver | answers |
|---|---|---|
| `RecordStatus` | records the status (a `key="goal"` event) | `StatusRecorded` |
| `RunAgent` | sends `message` (if any) and runs the agent, pausing it when `RunWatch` says a limit is reached | `RunEnded`, or `MessageRefused` when a hook refused the message |
| `AwaitApproval` | waits until the conversation leaves `waiting_for_confirmation` (never approves itself) | `ApprovalDecided` |
| `RunVerify` | runs the command in the workspace | `Verified` |
| `AskJudge` | asks the judge about the conversation | `Judged` |
| `TakeCheckpoint` | snapshots the workspace (a `key="checkpoint"` event), if it can keep snapshots | `CheckpointTaken` |
| `Finish` | stops: the goal ended with `outcome` | - |

Any step may instead be answered `Stopped` (the driver was cancelled, the user sent a message,
the driver failed). Verify and judge results carry the conversation's status when they ended,
so a pause during any phase is the controller's to judge.

Adding a step type: a step model and its result model here (both in the unions below and in
`ANSWERS`), a rule in `GoalController`, and one I/O function in each driver.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Annotated, Literal

from openhands.sdk.conversation.goal.limits import COST_BUDGET, TIME_LIMIT, Limit, used_up
from openhands.sdk.conversation.goal.models import (
    GoalOutcome,
    GoalStatus,
    GoalVerdict,
    RunEnd,
    VerifyResult,
)
from openhands.sdk.conversation.state import ConversationExecutionStatus
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from openhands.sdk.conversation.goal.models import JudgeAnswer

_FROZEN = ConfigDict(defer_build=True, frozen=True, extra="forbid")


# -- steps ------------------------------------------------------------------------------------


class RecordStatus(BaseModel):
    """Record `status` (append it as the conversation's goal event) before going on."""

    model_config = _FROZEN
    kind: Literal["record_status"] = "record_status"
    status: GoalStatus


class RunAgent(BaseModel):
    """Send `message` as a user message (None: send nothing, the agent goes on), then run the
    agent until its run ends. Pause the run when it has used `time_left` seconds or spent
    `cost_left` USD (None: no such limit; `RunWatch` tells), and report which one."""

    model_config = _FROZEN
    kind: Literal["run_agent"] = "run_agent"
    message: str | None = None
    time_left: float | None = Field(default=None, description="Seconds this run may take.")
    cost_left: float | None = Field(default=None, description="USD the agent may spend in it.")


class AwaitApproval(BaseModel):
    """Wait while the conversation is `waiting_for_confirmation`: a person approves or rejects
    the pending tool calls (or pauses the conversation). Never approve them yourself."""

    model_config = _FROZEN
    kind: Literal["await_approval"] = "await_approval"


class RunVerify(BaseModel):
    """Run `command` with bash in `working_dir`; kill it after `timeout` seconds; keep the last
    `tail_chars` characters of its output (`verify.run_verify_command` does exactly this)."""

    model_config = _FROZEN
    kind: Literal["run_verify"] = "run_verify"
    command: str
    working_dir: str | None = None
    timeout: float
    tail_chars: int


class AskJudge(BaseModel):
    """Ask the judge whether `objective` is proven by the conversation so far (a transcript of
    at most `transcript_chars` characters), showing it `verify` when there is one."""

    model_config = _FROZEN
    kind: Literal["ask_judge"] = "ask_judge"
    objective: str
    verify: VerifyResult | None = None
    transcript_chars: int


class TakeCheckpoint(BaseModel):
    """Snapshot the workspace now, labelled `label` (docs/checkpoints.md): at a goal's start
    (`goal_round` 0), at the end of each judged round (its number), when a goal resumes
    (None). A conversation that keeps no snapshots (not persisted, checkpoints switched off)
    answers `CheckpointTaken` without an id: the goal goes on either way."""

    model_config = _FROZEN
    kind: Literal["take_checkpoint"] = "take_checkpoint"
    label: str
    goal_round: int | None = None


class Finish(BaseModel):
    """The goal ended (its final status is recorded): stop driving."""

    model_config = _FROZEN
    kind: Literal["finish"] = "finish"
    outcome: GoalOutcome


DriverStep = Annotated[
    RecordStatus | RunAgent | AwaitApproval | RunVerify | AskJudge | TakeCheckpoint | Finish,
    Field(discriminator="kind"),
]
"""Any step `GoalController.next()` returns."""

RidingStep = Annotated[RecordStatus | TakeCheckpoint, Field(discriminator="kind")]
"""A step whose result never changes what the controller decides next (a status recorded, a
workspace snapshot taken or not): a driver that pays per call (a Temporal workflow) may advance
past it with `StatusRecorded()` / `CheckpointTaken()` and send it with the next step, to be
performed first, in order."""


# -- results ----------------------------------------------------------------------------------


class StatusRecorded(BaseModel):
    """The status of a `RecordStatus` step is on record."""

    model_config = _FROZEN
    kind: Literal["status_recorded"] = "status_recorded"


class RunEnded(BaseModel):
    """How the run of a `RunAgent` step ended: the conversation's status, the run's error (the
    `ConversationRunError`'s "<code>: <detail>" and code), the USD the agent spent in it, and
    the limit the driver paused it for, if one was reached."""

    model_config = _FROZEN
    kind: Literal["run_ended"] = "run_ended"
    status: ConversationExecutionStatus
    error: str | None = None
    code: str | None = None
    agent_cost: float = Field(default=0.0, description="USD spent by the agent in this run.")
    limit: Limit | None = None

    @classmethod
    def of(cls, end: RunEnd, *, agent_cost: float, limit: Limit | None = None) -> RunEnded:
        """The result for a run that ended as `end` (the conversation's own description)."""
        return cls(
            status=end.status,
            error=end.error,
            code=end.code,
            agent_cost=max(0.0, agent_cost),
            limit=limit,
        )


class MessageRefused(BaseModel):
    """The `RunAgent` step's message was refused (a UserPromptSubmit hook blocked it)."""

    model_config = _FROZEN
    kind: Literal["message_refused"] = "message_refused"
    error: str


class ApprovalDecided(BaseModel):
    """The conversation left `waiting_for_confirmation`; `status` is what it became."""

    model_config = _FROZEN
    kind: Literal["approval_decided"] = "approval_decided"
    status: ConversationExecutionStatus


class Verified(BaseModel):
    """The verify command's result, and the conversation's status when it ended."""

    model_config = _FROZEN
    kind: Literal["verified"] = "verified"
    result: VerifyResult
    conversation_status: ConversationExecutionStatus | None = None


class Judged(BaseModel):
    """The judge's verdict, what it cost, why it failed (if it did: a failed call or an answer
    without a verdict), and the conversation's status when it ended."""

    model_config = _FROZEN
    kind: Literal["judged"] = "judged"
    verdict: GoalVerdict
    cost: float = 0.0
    error: str | None = None
    conversation_status: ConversationExecutionStatus | None = None

    @classmethod
    def of(
        cls, answer: JudgeAnswer, conversation_status: ConversationExecutionStatus | None = None
    ) -> Judged:
        """The result for a judge call that gave `answer` (read the status after the call)."""
        return cls(
            verdict=answer.verdict,
            cost=answer.cost,
            error=answer.error,
            conversation_status=conversation_status,
        )


class CheckpointTaken(BaseModel):
    """The snapshot of a `TakeCheckpoint` step: its id, or none and why (`error`) when the
    workspace keeps no snapshots or the snapshot failed."""

    model_config = _FROZEN
    kind: Literal["checkpoint_taken"] = "checkpoint_taken"
    checkpoint_id: str | None = None
    error: str | None = None


class Stopped(BaseModel):
    """The step did not finish: the driver was stopped or failed. `reason` is one of the
    words in `goal.models` (STOPPED, USER_MESSAGE, DRIVER_ERROR, ...); `agent_cost` is what
    an agent run cut short had spent."""

    model_config = _FROZEN
    kind: Literal["stopped"] = "stopped"
    reason: str
    error: str | None = None
    agent_cost: float = 0.0


StepResult = Annotated[
    StatusRecorded
    | RunEnded
    | MessageRefused
    | ApprovalDecided
    | Verified
    | Judged
    | CheckpointTaken
    | Stopped,
    Field(discriminator="kind"),
]
"""Any result a driver gives `GoalController.advance()`."""

ANSWERS: dict[type[BaseModel], tuple[type[BaseModel], ...]] = {
    RecordStatus: (StatusRecorded,),
    RunAgent: (RunEnded, MessageRefused),
    AwaitApproval: (ApprovalDecided,),
    RunVerify: (Verified,),
    AskJudge: (Judged,),
    TakeCheckpoint: (CheckpointTaken,),
}
"""Which results answer which step (`Stopped` answers any)."""


# -- watching a run ---------------------------------------------------------------------------


class RunWatch:
    """What a driver checks while the agent of a `RunAgent` step runs (thread-safe).

    Report the agent's spending in this run with `spent(usd)` as events arrive, and call
    `time_up()` from a timer armed for `step.time_left` seconds. Each returns the limit the
    first time one is reached (then pause the run); `reached` goes into `RunEnded.limit`.
    """

    def __init__(self, step: RunAgent) -> None:
        self._step = step
        self._reached: Limit | None = None
        self._lock = threading.Lock()

    @property
    def step(self) -> RunAgent:
        """The run step being watched."""
        return self._step

    @property
    def watching(self) -> bool:
        """True when the step carries a limit at all."""
        return self._step.time_left is not None or self._step.cost_left is not None

    @property
    def reached(self) -> Limit | None:
        """The limit reached during this run, if one was."""
        return self._reached

    def spent(self, usd: float) -> Limit | None:
        """The agent has spent `usd` in this run: the cost budget, the first time it is used up."""
        if not used_up(self._step.cost_left, usd):
            return None
        return self._reach(COST_BUDGET)

    def time_up(self) -> Limit | None:
        """The timer armed for `step.time_left` fired: the time limit, the first time."""
        if self._step.time_left is None:
            return None
        return self._reach(TIME_LIMIT)

    def _reach(self, limit: Limit) -> Limit | None:
        with self._lock:
            if self._reached is not None:
                return None
            self._reached = limit
            return limit
