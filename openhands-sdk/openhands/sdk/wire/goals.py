"""Wire models of a goal's controls: a remote run's steps and a resume with new limits."""

from __future__ import annotations

from openhands.sdk.conversation.goal.resuming import GoalLimitsChange
from openhands.sdk.conversation.goal.steps import DriverStep, RecordStatus, StepResult
from openhands.sdk.llm.llm import LLM
from openhands.sdk.wire.base import WireAnswer, WireRequest
from pydantic import Field


class GoalStepRequest(WireRequest):
    """Body of POST /goal/steps: one step of a goal's remote run (a Temporal worker)."""

    run: str = Field(min_length=1, max_length=200, description="The run's token (from its start).")
    step_id: str = Field(
        min_length=1, max_length=200, description="The step's id: a retry sends the same one."
    )
    records: list[RecordStatus] = Field(
        default_factory=list,
        max_length=16,
        description="Statuses the controller decided on just before `step`, recorded first, "
        "in order (they ride with the next step: one request instead of several).",
    )
    step: DriverStep = Field(description="The step, as `GoalController.next()` gave it.")
    wait: float = Field(
        default=0.0, ge=0.0, le=60.0, description="Seconds to wait for the step to end."
    )


class GoalStepAnswer(WireAnswer):
    """Answer of POST /goal/steps: the step's result, or null while it is still under way."""

    result: StepResult | None = None


class ResumeGoalRequest(WireRequest):
    """Optional body of POST /goal/resume: the judge, and new limits (a capped goal goes on
    only with new ones; a limit left out or null keeps the recorded one)."""

    judge_llm: LLM | None = Field(
        default=None,
        description="The judge's LLM; default: the judge of the interrupted goal, or (after a "
        "restart) a copy of the agent's LLM.",
    )
    max_iterations: int | None = Field(
        default=None, ge=1, description="Judged rounds in all (those done included); null: keep."
    )
    max_cost: float | None = Field(
        default=None, ge=0, description="USD in all, agent and judge; 0: unlimited; null: keep."
    )
    time_limit: float | None = Field(
        default=None, ge=0, description="Seconds of work in all; 0: unlimited; null: keep."
    )

    def limits_change(self) -> GoalLimitsChange | None:
        """The new limits asked for, or None when the recorded ones stay."""
        change = GoalLimitsChange(
            max_iterations=self.max_iterations, max_cost=self.max_cost, time_limit=self.time_limit
        )
        return change if change.changes_anything else None
