"""A goal's budget arithmetic: what is left before a run, and whether a judged round caps it.

The limits themselves (and their wording) are `GoalLimits` in `goal.options`; this module
holds the two readings the goal machine makes of them, so the rule of how a limit the driver
saw is honoured lives in one place.
"""

from __future__ import annotations

from openhands.sdk.conversation.goal.options import COST_BUDGET, TIME_LIMIT, GoalLimits

__all__ = ["cap_reason", "left_for_run"]


def left_for_run(
    limits: GoalLimits, *, elapsed: float, cost: float
) -> tuple[float | None, float | None]:
    """Seconds and USD left for the next run (None where the goal has no such limit)."""
    time_left = None if limits.time_limit is None else limits.time_limit - elapsed
    cost_left = None if limits.max_cost is None else limits.max_cost - cost
    return time_left, cost_left


def cap_reason(
    limits: GoalLimits,
    *,
    limit: str | None,
    iterations: int,
    agent_cost: float,
    judge_cost: float,
    elapsed: float,
) -> str | None:
    """Why a judged round ends the goal `capped` (None while every limit holds).

    `limit` is the limit the driver saw reached during the round, if any.
    """
    # The driver saw a limit reached: a clock read a hair early, or a sum rounded a hair
    # low, must not undo it.
    if limit == TIME_LIMIT and limits.time_limit is not None:
        elapsed = max(elapsed, limits.time_limit)
    if limit == COST_BUDGET and limits.max_cost is not None:
        agent_cost = max(agent_cost, limits.max_cost - judge_cost)
    return limits.exceeded(
        iterations=iterations, agent_cost=agent_cost, judge_cost=judge_cost, elapsed=elapsed
    )
