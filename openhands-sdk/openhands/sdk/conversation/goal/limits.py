"""When a goal must stop: its limits, their partial form for a resume, and every check of them.

One home for the rule, as pydantic-ai keeps its `UsageLimits`: a goal stops `capped` after
`max_iterations` judged rounds, once its agent and judge spent `max_cost` USD, or once it
worked `time_limit` seconds (0 or None: unlimited). Code elsewhere asks these objects; it
never compares "spent" with "budget" itself:

- `GoalLimits.exceeded`: whether a goal must stop now, and why (the `capped` reason);
- `GoalLimits.for_run`: what the next agent run may use (a `RunAllowance`, which a driver
  watches while the agent runs, through `used_up`);
- `GoalLimits.cap_reason`: whether a judged round caps the goal, honouring a limit the
  driver saw reached during the round;
- `GoalLimits.check_room`: whether a capped goal's new limits leave room for one more round;
- `GoalLimitsChange`: the limits a resume changes (None keeps the recorded one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final, Literal

from openhands.sdk.conversation.goal.errors import InvalidGoalError, invalid_goal_error
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = [
    "COST_BUDGET",
    "DEFAULT_MAX_ITERATIONS",
    "TIME_LIMIT",
    "GoalLimits",
    "GoalLimitsChange",
    "Limit",
    "RunAllowance",
    "used_up",
]

DEFAULT_MAX_ITERATIONS = 10
"""Rounds a goal gets unless told otherwise."""

Limit = Literal["cost budget", "time limit"]
"""A limit a driver watches while the agent runs."""

COST_BUDGET: Final[Literal["cost budget"]] = "cost budget"
"""The limit that stops a goal whose agent and judge spent `max_cost`."""
TIME_LIMIT: Final[Literal["time limit"]] = "time limit"
"""The limit that stops a goal that worked `time_limit` seconds."""


def used_up(allowed: float | None, used: float) -> bool:
    """The one comparison: a limit is reached once what was used is at least what was
    allowed (`allowed` None: there is no such limit)."""
    return allowed is not None and used >= allowed


@dataclass(frozen=True)
class RunAllowance:
    """What the next agent run may use (`GoalLimits.for_run`)."""

    time_left: float | None
    """Seconds the run may take; None: no time limit."""
    cost_left: float | None
    """USD the agent may spend in it; None: no budget."""

    @property
    def reached(self) -> Limit | None:
        """The limit already used up before the run starts (time first), or None."""
        if used_up(self.time_left, 0.0):
            return TIME_LIMIT
        if used_up(self.cost_left, 0.0):
            return COST_BUDGET
        return None


def _unlimited_or_positive(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    if math.isnan(value) or value < 0:
        raise ValueError(f"{name} must be a number >= 0 (0 or null: unlimited), got {value}")
    return None if value == 0 or math.isinf(value) else float(value)


class GoalLimits(BaseModel):
    """When a goal stops without a complete verdict (see the module docstring).

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
        if used_up(self.max_iterations, iterations):
            return f"reached max_iterations ({self.max_iterations}) without a complete verdict"
        cost = agent_cost + judge_cost
        if used_up(self.max_cost, cost):
            return (
                f"{COST_BUDGET} reached: ${cost:.4f} spent of max_cost ${self.max_cost:.4f} "
                f"(agent ${agent_cost:.4f}, judge ${judge_cost:.4f})"
            )
        if used_up(self.time_limit, elapsed):
            return f"{TIME_LIMIT} reached: {elapsed:.1f} s of time_limit {self.time_limit:g} s"
        return None

    def for_run(self, *, elapsed: float, cost: float) -> RunAllowance:
        """What the next agent run may use, the goal having worked `elapsed` seconds and
        spent `cost` USD so far."""
        return RunAllowance(
            time_left=None if self.time_limit is None else self.time_limit - elapsed,
            cost_left=None if self.max_cost is None else self.max_cost - cost,
        )

    def cap_reason(
        self,
        *,
        limit: Limit | None,
        iterations: int,
        agent_cost: float,
        judge_cost: float,
        elapsed: float,
    ) -> str | None:
        """Why a judged round ends the goal `capped` (None while every limit holds).

        `limit` is the limit the driver saw reached during the round, if any: a clock read a
        hair early, or a sum rounded a hair low, must not undo it.
        """
        if limit == TIME_LIMIT and self.time_limit is not None:
            elapsed = max(elapsed, self.time_limit)
        if limit == COST_BUDGET and self.max_cost is not None:
            agent_cost = max(agent_cost, self.max_cost - judge_cost)
        return self.exceeded(
            iterations=iterations, agent_cost=agent_cost, judge_cost=judge_cost, elapsed=elapsed
        )

    def check_room(self, *, iterations: int, cost: float, elapsed: float) -> None:
        """Raise `InvalidGoalError` naming the limit that leaves a goal which did
        `iterations` rounds, spent `cost` and worked `elapsed` seconds no room for another
        round (how a capped goal's new limits are checked)."""
        if used_up(self.max_iterations, iterations):
            raise InvalidGoalError(
                f"max_iterations must be more than the {iterations} rounds already done, "
                f"got {self.max_iterations}",
                "max_iterations",
            )
        if used_up(self.max_cost, cost):
            raise InvalidGoalError(
                f"max_cost must be more than the ${cost:.4f} already spent (0: unlimited), "
                f"got {self.max_cost:g}",
                "max_cost",
            )
        if used_up(self.time_limit, elapsed):
            raise InvalidGoalError(
                f"time_limit must be more than the {elapsed:.1f} s already worked (0: "
                f"unlimited), got {self.time_limit:g}",
                "time_limit",
            )


class GoalLimitsChange(BaseModel):
    """New limits for a goal that goes on; a field left None keeps the recorded limit.

    `max_cost` and `time_limit` of 0 mean unlimited, as when a goal starts. The values are
    checked once they are applied (`applied_to`), by `GoalLimits`' own rules, so a bad one is
    an `InvalidGoalError` naming it, as for a goal that starts.
    """

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    max_iterations: int | None = Field(
        default=None, description="Judged rounds allowed in all (the rounds done included)."
    )
    max_cost: float | None = Field(
        default=None, description="USD for the agent and judge in all; 0: unlimited."
    )
    time_limit: float | None = Field(
        default=None, description="Seconds of work in all (time stopped is free); 0: unlimited."
    )

    @property
    def changes_anything(self) -> bool:
        """True when at least one limit is given."""
        return bool(self.limit_fields())

    def limit_fields(self) -> dict[str, Any]:
        """The limits given (None ones left out)."""
        return {
            name: value
            for name in GoalLimitsChange.model_fields
            if (value := getattr(self, name)) is not None
        }

    def applied_to(self, limits: GoalLimits) -> GoalLimits:
        """`limits` with the given fields replaced; `InvalidGoalError` names a bad one."""
        try:
            return GoalLimits.model_validate({**limits.model_dump(), **self.limit_fields()})
        except ValidationError as exc:
            raise invalid_goal_error(exc) from None
