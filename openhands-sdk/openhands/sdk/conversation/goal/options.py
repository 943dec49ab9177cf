"""What a goal is asked to do: one model for every way to start one (its limits: `limits.py`).

`GoalRequest` is the body of `POST /api/conversations/{id}/goal`, what
`RemoteConversation.start_goal` sends, and what `run_goal` and `GoalController` check their
arguments with, so a value means the same everywhere: `max_cost=0` is "unlimited" in a
script and on the server alike, and a negative budget is refused by both with one message.
"""

from __future__ import annotations

from typing import Any, Self

from openhands.sdk.conversation.goal.errors import invalid_goal_error
from openhands.sdk.conversation.goal.limits import (
    COST_BUDGET,
    DEFAULT_MAX_ITERATIONS,
    TIME_LIMIT,
    GoalLimits,
)
from openhands.sdk.llm.llm import LLM
from openhands.sdk.secret.secrets import dump_with_secrets
from pydantic import Field, ValidationError, field_validator


class GoalRequest(GoalLimits):
    """A goal to start: the objective, an optional verify command and judge, and the limits.

    The same model is the server's `StartGoalRequest`; `checked(...)` builds it from Python
    arguments and raises `InvalidGoalError` (a ValueError) naming the bad field.
    """

    objective: str = Field(description="What must be true when the goal is complete.")
    verify: str | None = Field(
        default=None,
        description="Shell command run in the workspace after each round (e.g. 'pytest -q'); "
        "the goal cannot complete unless it exits 0. Null: no command.",
    )
    judge_llm: LLM | None = Field(
        default=None,
        description="The judge's LLM spec; default (on the server): a copy of the agent's LLM "
        "with usage_id='goal-judge'.",
    )

    @field_validator("objective")
    @classmethod
    def _objective_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("objective must not be blank: say what must be true when done")
        return value.strip()

    @field_validator("verify")
    @classmethod
    def _verify_not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("verify must be a shell command or null, not blank")
        if value is not None and "\x00" in value:
            # The OS cannot pass a NUL byte to a process: such a command could never run.
            raise ValueError("verify must not contain a NUL byte (\\x00): no command can carry one")
        return None if value is None else value.strip()

    @property
    def limits(self) -> GoalLimits:
        """The limits alone."""
        return GoalLimits(
            max_iterations=self.max_iterations, max_cost=self.max_cost, time_limit=self.time_limit
        )

    @classmethod
    def checked(cls, **fields: Any) -> Self:
        """Validate Python arguments; `InvalidGoalError` names the first bad field."""
        try:
            return cls.model_validate(fields)
        except ValidationError as exc:
            raise invalid_goal_error(exc) from None

    def to_wire(self) -> dict[str, Any]:
        """The JSON body for `POST /goal` (the judge's key included: it goes to the server)."""
        return dump_with_secrets(self)


__all__ = ["COST_BUDGET", "DEFAULT_MAX_ITERATIONS", "TIME_LIMIT", "GoalLimits", "GoalRequest"]
