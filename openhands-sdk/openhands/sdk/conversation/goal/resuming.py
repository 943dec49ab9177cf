"""Which recorded goal may go on, and with which limits: one rule for every driver.

A goal that did not end (interrupted, or left `running` by a driver that died) resumes, with
its own limits or new ones. A capped goal continues only with new limits that leave room to
work (a larger `max_iterations`, `max_cost` or `time_limit`). A complete goal is done: start
a new one. `run_goal`'s `resume_goal`, the agent server's `POST /goal/resume`,
`RemoteConversation.resume_goal` and `openhands-goal --resume` all ask `resume_limits`.
"""

from __future__ import annotations

from openhands.sdk.conversation.goal.errors import NoResumableGoalError
from openhands.sdk.conversation.goal.limits import GoalLimits, GoalLimitsChange
from openhands.sdk.conversation.goal.models import GoalStatus


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
        limits.check_room(iterations=status.iteration, cost=status.cost, elapsed=status.elapsed)
    return limits


__all__ = ["GoalLimitsChange", "resume_limits"]
