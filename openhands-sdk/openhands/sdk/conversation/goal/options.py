"""What a goal is asked to do, and when it must stop: one model for every way to start one.

`GoalRequest` is the body of `POST /api/conversations/{id}/goal`, what
`RemoteConversation.start_goal` sends, and what `run_goal` and `GoalController` check their
arguments with, so a value means the same everywhere: `max_cost=0` is "unlimited" in a
script and on the server alike, and a negative budget is refused by both with one message.
"""

from __future__ import annotations

import math
from typing import Any, Final, Literal, Self

from openhands.sdk.conversation.goal.errors import InvalidGoalError
from openhands.sdk.llm.llm import LLM
from openhands.sdk.secret.secrets import dump_with_secrets
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

DEFAULT_MAX_ITERATIONS = 10
"""Rounds a goal gets unless told otherwise."""

COST_BUDGET: Final[Literal["cost budget"]] = "cost budget"
"""The limit that stops a goal whose agent and judge spent `max_cost`."""
TIME_LIMIT: Final[Literal["time limit"]] = "time limit"
"""The limit that stops a goal that worked `time_limit` seconds."""


def _unlimited_or_positive(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    if math.isnan(value) or value < 0:
        raise ValueError(f"{name} must be a number >= 0 (0 or null: unlimited), got {value}")
    return None if value == 0 or math.isinf(value) else float(value)


class GoalLimits(BaseModel):
    """When a goal stops without a complete verdict (like pydantic-ai's `UsageLimits`).

    A goal that reaches a limit ends `capped`, with the limit named in its `reason`.
    """

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    max_iterations: int = Field(
        default=DEFAULT_MAX_ITERATIONS,
        description="Judged rounds allowed (an agent run plus a verdict each); must be >= 1.",
    )
    max_cost: float | None = Field(
        default=None,
        description="Budget in USD for the agent and the judge together; 0 or null: unlimited.",
    )
    time_limit: float | None = Field(
        default=None,
        description="Wall-clock seconds the goal may work (time while stopped is free); "
        "0 or null: unlimited.",
    )

    @field_validator("max_iterations", mode="before")
    @classmethod
    def _whole_rounds(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError(f"max_iterations must be an integer >= 1, got {value!r}")
        return value

    @field_validator("max_iterations")
    @classmethod
    def _at_least_one(cls, value: int) -> int:
        if value < 1:
            raise ValueError(f"max_iterations must be >= 1, got {value}")
        return value

    @field_validator("max_cost")
    @classmethod
    def _budget(cls, value: float | None) -> float | None:
        return _unlimited_or_positive("max_cost", value)

    @field_validator("time_limit")
    @classmethod
    def _time(cls, value: float | None) -> float | None:
        return _unlimited_or_positive("time_limit", value)

    def exceeded(
        self, *, iterations: int, agent_cost: float, judge_cost: float, elapsed: float
    ) -> str | None:
        """Why the goal must stop now (a limit reached), or None while every limit holds."""
        if iterations >= self.max_iterations:
            return f"reached max_iterations ({self.max_iterations}) without a complete verdict"
        cost = agent_cost + judge_cost
        if self.max_cost is not None and cost >= self.max_cost:
            return (
                f"{COST_BUDGET} reached: ${cost:.4f} spent of max_cost ${self.max_cost:.4f} "
                f"(agent ${agent_cost:.4f}, judge ${judge_cost:.4f})"
            )
        if self.time_limit is not None and elapsed >= self.time_limit:
            return f"{TIME_LIMIT} reached: {elapsed:.1f} s of time_limit {self.time_limit:g} s"
        return None


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
            raise _invalid(exc) from None

    def to_wire(self) -> dict[str, Any]:
        """The JSON body for `POST /goal` (the judge's key included: it goes to the server)."""
        return dump_with_secrets(self)


def _invalid(exc: ValidationError) -> InvalidGoalError:
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"]) or None
    message = str(error["msg"]).removeprefix("Value error, ")
    if field and not message.startswith(field):
        message = f"{field}: {message}"
    return InvalidGoalError(message, field)
