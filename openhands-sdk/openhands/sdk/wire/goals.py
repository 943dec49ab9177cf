"""Wire models of a goal's controls: its start, a resume with new limits, a remote run's steps.

Both goal bodies follow the wire's one rule for fields this version does not know (dropped
with a log line, `WireModel`), and take their fields and checks from the SDK's own models
(`GoalRequest`, `GoalLimitsChange`), so a script and the server agree on every value.
"""

from __future__ import annotations

from openhands.sdk.conversation.goal.limits import GoalLimitsChange
from openhands.sdk.conversation.goal.options import GoalRequest
from openhands.sdk.conversation.goal.steps import DriverStep, RidingStep, StepResult
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.llm_profile_store import PROFILE_NAME
from openhands.sdk.wire.base import WireAnswer, WireRequest
from pydantic import Field


class StartGoalRequest(WireRequest, GoalRequest):
    """Body of POST /goal: the agent works until an independent judge finds the objective
    proven.

    The fields and their meaning are the SDK's `GoalRequest` (0 or null limits: unlimited;
    negative: refused with a 422 naming the field), so a script and the server agree; the
    server adds `judge_llm_profile`.
    """

    judge_llm_profile: str | None = Field(
        default=None,
        pattern=PROFILE_NAME.pattern,
        description="A stored LLM profile (/api/profiles) to judge with, instead of judge_llm; "
        "its key stays on the server.",
    )


class GoalStepRequest(WireRequest):
    """Body of POST /goal/steps: one step of a goal's remote run (a Temporal worker)."""

    run: str = Field(min_length=1, max_length=200, description="The run's token (from its start).")
    step_id: str = Field(
        min_length=1, max_length=200, description="The step's id: a retry sends the same one."
    )
    records: list[RidingStep] = Field(
        default_factory=list,
        max_length=16,
        description="What the controller decided to record just before `step` (statuses, "
        "workspace snapshots), performed first, in order (they ride with the next step: one "
        "request instead of several).",
    )
    step: DriverStep = Field(description="The step, as `GoalController.next()` gave it.")
    wait: float = Field(
        default=0.0, ge=0.0, le=60.0, description="Seconds to wait for the step to end."
    )


class GoalStepAnswer(WireAnswer):
    """Answer of POST /goal/steps: the step's result, or null while it is still under way
    (the server then tells the run's backend when it ends: a signal to its workflow)."""

    result: StepResult | None = None


class ResumeGoalRequest(WireRequest, GoalLimitsChange):
    """Optional body of POST /goal/resume: the judge, and new limits (a capped goal goes on
    only with new ones; a limit left out or null keeps the recorded one; 0: unlimited)."""

    judge_llm: LLM | None = Field(
        default=None,
        description="The judge's LLM; default: the judge of the interrupted goal, or (after a "
        "restart) a copy of the agent's LLM.",
    )

    def limits_change(self) -> GoalLimitsChange | None:
        """The new limits asked for, or None when the recorded ones stay."""
        change = GoalLimitsChange.model_validate(self.limit_fields())
        return change if change.changes_anything else None
