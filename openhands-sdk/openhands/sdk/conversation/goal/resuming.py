"""Which recorded goal may go on, and with which limits: one rule for every driver.

A goal that did not end (interrupted, or left `running` by a driver that died) resumes, with
its own limits or new ones. A capped goal continues only with new limits that leave room to
work (a larger `max_iterations`, `max_cost` or `time_limit`). A complete goal is done: start
a new one. `run_goal`'s `resume_goal`, the agent server's `POST /goal/resume`,
`RemoteConversation.resume_goal` and `openhands-goal --resume` all ask `resume_limits`.
"""

from __future__ import annotations

from typing import Any

from openhands.sdk.conversation.goal.errors import InvalidGoalError, NoResumableGoalError
from openhands.sdk.conversation.goal.models import GoalStatus
from openhands.sdk.conversation.goal.options import GoalLimits
from pydantic import BaseModel, ConfigDict, Field, ValidationError


class GoalLimitsChange(BaseModel):
    """New limits for a goal that goes on; a field left None keeps the recorded limit.

    `max_cost` and `time_limit` of 0 mean unlimited, as when a goal starts.
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
        return bool(self.model_dump(exclude_none=True))

    def applied_to(self, limits: GoalLimits) -> GoalLimits:
        """`limits` with the given fields replaced; `InvalidGoalError` names a bad one."""
        fields: dict[str, Any] = {**limits.model_dump(), **self.model_dump(exclude_none=True)}
        try:
            return GoalLimits.model_validate(fields)
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(part) for part in error["loc"]) or None
            message = str(error["msg"]).removeprefix("Value error, ")
            raise InvalidGoalError(message, field) from None


def resume_limits(
    status: GoalStatus | None, change: GoalLimitsChange | None, *, start_hint: str
) -> GoalLimits:
    """The limits the recorded goal `status` goes on with, `change` applied.

    Raises `NoResumableGoalError` when nothing can go on (no goal, a complete one, a capped
    one without new limits); `start_hint` says how this caller starts a new goal. Raises
    `InvalidGoalError` naming the field when the new limits are invalid or, for a capped
    goal, still reached.
    """
    if status is None:
        raise NoResumableGoalError(f"This conversation has no goal to resume; {start_hint}.")
    if status.status == "complete":
        raise NoResumableGoalError(f"The last goal is complete: nothing to resume; {start_hint}.")
    given = change is not None and change.changes_anything
    if status.status == "capped" and not given:
        raise NoResumableGoalError(
            f"The last goal was capped ({status.reason}). Continue it with new limits (a "
            f"larger max_iterations, max_cost or time_limit), or {start_hint}."
        )
    limits = change.applied_to(status.limits) if change is not None else status.limits
    if status.status == "capped":
        _check_room(status, limits)
    return limits


def _check_room(status: GoalStatus, limits: GoalLimits) -> None:
    """A capped goal's new limits must let it work at least one more round."""
    if status.iteration >= limits.max_iterations:
        raise InvalidGoalError(
            f"max_iterations must be more than the {status.iteration} rounds already done, "
            f"got {limits.max_iterations}",
            "max_iterations",
        )
    if limits.max_cost is not None and status.cost >= limits.max_cost:
        raise InvalidGoalError(
            f"max_cost must be more than the ${status.cost:.4f} already spent (0: unlimited), "
            f"got {limits.max_cost:g}",
            "max_cost",
        )
    if limits.time_limit is not None and status.elapsed >= limits.time_limit:
        raise InvalidGoalError(
            f"time_limit must be more than the {status.elapsed:.1f} s already worked (0: "
            f"unlimited), got {limits.time_limit:g}",
            "time_limit",
        )


__all__ = ["GoalLimitsChange", "resume_limits"]
