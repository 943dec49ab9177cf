"""The goal loop's data: verdicts, verify results, the status chip, outcomes and steps.

Everything here is plain data (pydantic models and frozen dataclasses) so a driver can
persist it, stream it to a UI, or hand it to a durable workflow engine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from openhands.sdk.contracts import EventHistory
from openhands.sdk.conversation.goal.limits import GoalLimits
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.event.state import ConversationErrorEvent
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    computed_field,
    field_validator,
    model_validator,
)

GoalStatusName = Literal["running", "complete", "capped", "interrupted"]
"""Where a goal is: still `running`, or ended `complete`, `capped` (a limit) or `interrupted`."""

GoalOutcomeStatus = Literal["complete", "capped", "interrupted"]
"""How a goal ended."""

GoalPhase = Literal["agent", "waiting_for_approval", "verifying", "judging"]
"""What an active goal is doing: the agent works (or waits for a person to approve a tool
call), the verify command runs, the judge decides."""

# Why a goal was interrupted (`GoalStatus.reason`); drivers report these words, clients match them.
PAUSED = "conversation paused"
"""Someone paused the conversation while the goal worked (any phase)."""
STOPPED = "stopped by user"
"""The goal was stopped (POST /goal/stop, Ctrl-C in the command line)."""
USER_MESSAGE = "user message"
"""A person sent the conversation a message while the goal worked."""
AGENT_ERROR = "agent error"
"""The agent's run failed (not merely its step cap)."""
BLOCKED = "message blocked by a hook"
"""A UserPromptSubmit hook refused the goal's message (the objective or a follow-up)."""
DRIVER_ERROR = "driver error"
"""The driver could not perform a step (another run holds the conversation, a bug)."""
DRIVER_STOPPED = "driver stopped"
"""The driver's process or thread stopped under it (Ctrl-C, an uncaught exception)."""
SERVER_RESTART = "server restart"
"""The process driving the goal died (a server restart, a killed script): found `running`."""


class GoalRequirement(BaseModel):
    """One requirement the judge derived from the objective, and whether it is proven."""

    text: str = Field(description="The requirement, in the judge's words.")
    satisfied: bool = Field(description="True when the transcript proves it.")
    evidence: str = Field(default="", description="What proves it (or what is lacking).")


class GoalVerdict(BaseModel):
    """The judge's answer for one round: a score, whether the goal is complete, what is missing.

    `missing` says in words what remains ("" when nothing does); a judge that lists the gaps
    gets them joined with "; ", and the list itself is kept in `missing_items`. `score` is
    clamped to 0..1. `requirements` is optional: judges that answer only
    `{score, complete, missing}` work too.
    """

    score: float = Field(default=0.0, description="Progress from 0 (nothing) to 1 (done).")
    complete: bool = Field(default=False, description="True when the objective is proven done.")
    missing: str = Field(default="", description="What is missing or unproven, in words.")
    missing_items: list[str] = Field(
        default_factory=list, description="The same gaps one by one (when the judge listed them)."
    )
    requirements: list[GoalRequirement] | None = Field(
        default=None, description="Per-requirement verdicts, when the judge gave them."
    )

    @model_validator(mode="before")
    @classmethod
    def _missing_in_words_and_items(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not ("missing" in data or "missing_items" in data):
            return data
        items = _items(data.get("missing_items"))
        raw = data.get("missing")
        if isinstance(raw, list | tuple):
            listed = _items(raw)
            items = items or listed
            words = "; ".join(listed)
        else:
            words = "" if raw is None else str(raw).strip()
            if not items and words and "missing_items" not in data:
                items = [words]
        if not words:
            words = "; ".join(items)
        return {**data, "missing": words, "missing_items": items}

    @field_validator("score", mode="before")
    @classmethod
    def _clamp_score(cls, value: Any) -> float:
        try:
            score = float(value)
        except (TypeError, ValueError):
            return 0.0
        if math.isnan(score):
            return 0.0
        return min(1.0, max(0.0, score))

    @property
    def unmet_requirements(self) -> list[GoalRequirement]:
        """The derived requirements the judge did not find proven (empty if none were given)."""
        return [req for req in self.requirements or [] if not req.satisfied]

    def gated_by(self, verify: VerifyResult | None) -> GoalVerdict:
        """This verdict, but never complete while the verify command fails (which is then
        what is missing): a judge fooled by a claim cannot finish a goal whose tests fail."""
        if verify is None or verify.passed or not self.complete:
            return self
        state = "timed out" if verify.timed_out else f"exited {verify.exit_code}"
        return self.not_complete_because(f"`{verify.command}` must exit 0 (it {state})")

    def not_complete_because(self, gap: str) -> GoalVerdict:
        """This verdict turned into "not complete", with `gap` added to what is missing."""
        items = [*self.missing_items, gap]
        words = f"{self.missing}; {gap}" if self.missing else gap
        return self.model_copy(update={"complete": False, "missing": words, "missing_items": items})


def _items(value: Any) -> list[str]:
    if not isinstance(value, list | tuple):
        return []
    return [str(item).strip() for item in value if item is not None and str(item).strip()]


class VerifyResult(BaseModel):
    """What the `verify` command did after a round: its exit code and the tail of its output."""

    command: str
    exit_code: int
    output_tail: str = Field(default="", description="The last part of stdout + stderr.")
    timed_out: bool = False

    @property
    def passed(self) -> bool:
        """True when the command exited 0 (a goal with `verify` cannot complete otherwise)."""
        return self.exit_code == 0 and not self.timed_out


class GoalRound(BaseModel):
    """One judged round, in brief: enough for a UI to draw a row of a round timeline."""

    iteration: int = Field(ge=1, description="The round's number (1 for the first).")
    score: float = Field(description="The judge's score for the round.")
    complete: bool = Field(description="Whether the round ended with a complete verdict.")
    missing: str = Field(default="", description="What the judge found missing, in words.")
    verify_exit_code: int | None = Field(
        default=None, description="Exit code of the verify command (None without one)."
    )
    agent_cost: float = Field(default=0.0, description="USD the agent spent in this round.")
    judge_cost: float = Field(default=0.0, description="USD the judge spent on this round.")
    seconds: float = Field(default=0.0, ge=0.0, description="Wall-clock seconds of the round.")
    judge_error: str | None = Field(default=None, description="Why the judge failed, if it did.")

    @property
    def cost(self) -> float:
        """Agent plus judge cost of the round in USD."""
        return self.agent_cost + self.judge_cost


class GoalStatus(BaseModel):
    """A snapshot of a goal for the UI chip; also what a driver persists to resume a goal.

    It is the `value` of `ConversationStateUpdateEvent(key="goal")`, recorded at the start,
    at each phase change and at the end. In the event log only the first status of a driver
    holds the objective; later ones name that event in `objective_ref` (see
    `goal/status.py`), and readers (`last_goal_status`, `GET /goal`) give the full status.
    """

    # One schema as written and as read (`max_iterations` is derived from `limits`, and a
    # status read back ignores it), so the API documents one `GoalStatus`.
    model_config = ConfigDict(extra="ignore", json_schema_mode_override="serialization")

    active: bool = Field(description="True while a driver is working on the goal.")
    status: GoalStatusName
    iteration: int = Field(ge=0, description="Rounds judged so far.")
    objective: str
    phase: GoalPhase | None = Field(
        default=None,
        description="What the goal is doing now: the agent works, it waits for a person to "
        "approve a tool call, verify runs, or the judge decides; None once the goal is not "
        "active.",
    )
    verdict: GoalVerdict | None = Field(default=None, description="The latest judge verdict.")
    verify: VerifyResult | None = Field(default=None, description="The latest verify result.")
    last_round: GoalRound | None = Field(
        default=None, description="The latest judged round in brief (a timeline row)."
    )
    error: str | None = Field(default=None, description="Why the goal failed, if it did.")
    cost: float = Field(default=0.0, description="USD spent so far: agent plus judge.")
    judge_cost: float = Field(default=0.0, description="USD spent by the judge alone.")
    reason: str | None = Field(default=None, description="Why the goal was capped/interrupted.")
    verify_command: str | None = Field(default=None, description="The verify command, if any.")
    limits: GoalLimits = Field(
        default_factory=GoalLimits,
        description="The round cap and the budgets (`max_iterations`, `max_cost`, `time_limit`).",
    )
    elapsed: float = Field(default=0.0, ge=0.0, description="Seconds the goal has run so far.")
    judge_failures: int = Field(default=0, ge=0, description="Judge failures in a row.")

    @model_validator(mode="before")
    @classmethod
    def _flat_limits(cls, data: Any) -> Any:
        """Statuses written before `limits` existed hold the limits as top-level fields."""
        if not isinstance(data, dict) or "limits" in data:
            return data
        flat = {name: data[name] for name in _LIMIT_FIELDS if name in data}
        return {**data, "limits": flat}

    @computed_field(description="The round cap (the same as `limits.max_iterations`).")
    @property
    def max_iterations(self) -> int:
        """The round cap."""
        return self.limits.max_iterations

    @property
    def max_cost(self) -> float | None:
        """The USD budget (agent and judge), or None."""
        return self.limits.max_cost

    @property
    def time_limit(self) -> float | None:
        """The seconds the goal may work, or None."""
        return self.limits.time_limit

    @property
    def agent_cost(self) -> float:
        """USD spent by the agent alone."""
        return max(0.0, self.cost - self.judge_cost)

    @property
    def resumable(self) -> bool:
        """True for a goal that did not end: interrupted, or left `running` by a dead driver."""
        return self.status in ("running", "interrupted")


_LIMIT_FIELDS = ("max_iterations", "max_cost", "time_limit")


class GoalOutcome(BaseModel):
    """How a goal ended, after how many rounds, with the last verdict and what it cost."""

    status: GoalOutcomeStatus
    iterations: int = Field(ge=1, description="Rounds worked on (judged, or started and cut).")
    verdict: GoalVerdict | None = None
    reason: str | None = Field(default=None, description="Why it was capped or interrupted.")
    error: str | None = Field(default=None, description="The real error, if one ended it.")
    agent_cost: float = Field(default=0.0, description="USD spent by the agent.")
    judge_cost: float = Field(default=0.0, description="USD spent by the judge.")
    verify: VerifyResult | None = Field(default=None, description="The last verify result.")

    @property
    def complete(self) -> bool:
        """True when the judge (and verify, if set) declared the objective done."""
        return self.status == "complete"

    @property
    def cost(self) -> float:
        """Agent plus judge cost in USD."""
        return self.agent_cost + self.judge_cost


@dataclass(frozen=True, slots=True)
class JudgeAnswer:
    """One judge call: the verdict, its cost, and the error if the call or parse failed."""

    verdict: GoalVerdict
    cost: float = 0.0
    error: str | None = None

    @property
    def failed(self) -> bool:
        """True when the judge raised or gave no parseable verdict."""
        return self.error is not None


@dataclass(frozen=True, slots=True)
class GoalContinue:
    """Not done yet: send `followup` to the agent and run again. `verdict` is this round's."""

    followup: str
    verdict: GoalVerdict


@dataclass(frozen=True, slots=True)
class GoalDone:
    """The goal ended; `outcome` says how."""

    outcome: GoalOutcome


GoalStep = GoalContinue | GoalDone
"""What `GoalController.on_run_finished` returns."""


class RunEnd(BaseModel):
    """How one agent run ended, as a driver saw it: the status, and for a failed run why.

    `error` is "<code>: <detail>" of the `ConversationRunError`; `code` alone decides whether
    the failure only ends the round (`ROUND_ENDING_ERRORS`, a rule of `GoalController`).
    """

    model_config = ConfigDict(frozen=True)

    status: ConversationExecutionStatus
    error: str | None = None
    code: str | None = None

    @classmethod
    def after_run(cls, status: ConversationExecutionStatus, events: EventHistory) -> RunEnd:
        """How a run that returned without raising ended, from the conversation's state.

        A run that ends `error` without raising (the step cap: `MaxIterationsReached`) is
        described by the newest `ConversationErrorEvent` among the last events.
        """
        if status != ConversationExecutionStatus.ERROR:
            return cls(status=status)
        total = len(events)
        for event in reversed(events.read(max(0, total - _ERROR_SEARCH), total)):
            if isinstance(event, ConversationErrorEvent):
                return cls(status=status, error=f"{event.code}: {event.detail}", code=event.code)
        return cls(status=status, error="Error: the run ended with status error", code="Error")


_ERROR_SEARCH = 50
"""How many of the newest events `RunEnd.after_run` searches for the run's error event."""
