"""Request models of the goal routes (the start request is the SDK's `GoalRequest`)."""

from __future__ import annotations

from openhands.sdk.conversation.goal import GoalRequest
from openhands.sdk.llm import LLM
from pydantic import BaseModel, ConfigDict, Field


class StartGoalRequest(GoalRequest):
    """Start a goal: the agent works until an independent judge finds the objective proven.

    The fields and their meaning are the SDK's `GoalRequest` (0 or null limits: unlimited;
    negative: refused with a 422 naming the field), so a script and the server agree.
    """


class ResumeGoalRequest(BaseModel):
    """Optional body of POST /goal/resume."""

    model_config = ConfigDict(extra="forbid")

    judge_llm: LLM | None = Field(
        default=None,
        description="The judge's LLM; default: the judge of the interrupted goal, or (after a "
        "restart) a copy of the agent's LLM.",
    )
