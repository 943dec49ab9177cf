"""Request models of the goal routes."""

from __future__ import annotations

from openhands.sdk.llm import LLM
from pydantic import BaseModel, ConfigDict, Field, field_validator


class StartGoalRequest(BaseModel):
    """Start a goal: the agent works until an independent judge finds the objective proven."""

    model_config = ConfigDict(extra="forbid")

    objective: str = Field(description="What must be true when the goal is complete.")
    max_iterations: int = Field(default=10, ge=1, description="Judged rounds allowed (>= 1).")
    verify: str | None = Field(
        default=None,
        description="Shell command run in the workspace after each round (e.g. 'pytest -q'); "
        "the goal cannot complete unless it exits 0.",
    )
    judge_llm: LLM | None = Field(
        default=None,
        description="The judge's LLM spec; default: a copy of the agent's LLM with "
        "usage_id='goal-judge'.",
    )
    max_cost: float | None = Field(
        default=None, gt=0, description="Budget in USD (agent + judge); null: no budget."
    )
    time_limit: float | None = Field(
        default=None, gt=0, description="Wall-clock seconds allowed; null: no limit."
    )

    @field_validator("objective")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("objective must not be blank: say what must be true when done")
        return value.strip()

    @field_validator("verify")
    @classmethod
    def _verify_not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("verify must be a shell command or null, not blank")
        return value


class ResumeGoalRequest(BaseModel):
    """Optional body of POST /goal/resume."""

    model_config = ConfigDict(extra="forbid")

    judge_llm: LLM | None = Field(
        default=None,
        description="The judge's LLM; default: the judge of the interrupted goal, or (after a "
        "restart) a copy of the agent's LLM.",
    )
