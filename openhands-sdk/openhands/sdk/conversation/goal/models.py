"""The goal loop's data: verdicts, verify results, the status chip, outcomes and steps.

Everything here is plain data (pydantic models and frozen dataclasses) so a driver can
persist it, stream it to a UI, or hand it to a durable workflow engine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

GoalStatusName = Literal["running", "complete", "capped", "interrupted"]
"""Where a goal is: still `running`, or ended `complete`, `capped` (a limit) or `interrupted`."""

GoalOutcomeStatus = Literal["complete", "capped", "interrupted"]
"""How a goal ended."""


class GoalRequirement(BaseModel):
    """One requirement the judge derived from the objective, and whether it is proven."""

    text: str = Field(description="The requirement, in the judge's words.")
    satisfied: bool = Field(description="True when the transcript proves it.")
    evidence: str = Field(default="", description="What proves it (or what is lacking).")


class GoalVerdict(BaseModel):
    """The judge's answer for one round: a score, whether the goal is complete, what is missing.

    `missing` given as a single string becomes a one-item list; `score` is clamped to 0..1.
    `requirements` is optional: judges that answer only `{score, complete, missing}` work too.
    """

    score: float = Field(default=0.0, description="Progress from 0 (nothing) to 1 (done).")
    complete: bool = Field(default=False, description="True when the objective is proven done.")
    missing: list[str] = Field(default_factory=list, description="What is missing or unproven.")
    requirements: list[GoalRequirement] | None = Field(
        default=None, description="Per-requirement verdicts, when the judge gave them."
    )

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

    @field_validator("missing", mode="before")
    @classmethod
    def _coerce_missing(cls, value: Any) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str):
            return [value] if value.strip() else []
        if isinstance(value, list | tuple):
            return [str(item) for item in value if item is not None and str(item).strip()]
        return [str(value)]

    @property
    def unmet_requirements(self) -> list[GoalRequirement]:
        """The derived requirements the judge did not find proven (empty if none were given)."""
        return [req for req in self.requirements or [] if not req.satisfied]


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


class GoalStatus(BaseModel):
    """A snapshot of a goal for the UI chip; also what a driver persists to resume a goal.

    It is the `value` of `ConversationStateUpdateEvent(key="goal")`.
    """

    model_config = ConfigDict(extra="ignore")

    active: bool = Field(description="True while a driver is working on the goal.")
    status: GoalStatusName
    iteration: int = Field(ge=0, description="Rounds judged so far.")
    max_iterations: int = Field(ge=1, description="The round cap.")
    objective: str
    verdict: GoalVerdict | None = Field(default=None, description="The latest judge verdict.")
    verify: VerifyResult | None = Field(default=None, description="The latest verify result.")
    error: str | None = Field(default=None, description="Why the goal failed, if it did.")
    cost: float = Field(default=0.0, description="USD spent so far: agent plus judge.")
    judge_cost: float = Field(default=0.0, description="USD spent by the judge alone.")
    reason: str | None = Field(default=None, description="Why the goal was capped/interrupted.")
    verify_command: str | None = Field(default=None, description="The verify command, if any.")
    max_cost: float | None = Field(default=None, description="Cost budget in USD; None: none.")
    time_limit: float | None = Field(default=None, description="Seconds allowed; None: none.")
    elapsed: float = Field(default=0.0, ge=0.0, description="Seconds the goal has run so far.")
    judge_failures: int = Field(default=0, ge=0, description="Judge failures in a row.")

    @property
    def agent_cost(self) -> float:
        """USD spent by the agent alone."""
        return max(0.0, self.cost - self.judge_cost)


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
