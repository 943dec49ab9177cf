"""Goals: run an agent until an independent judge finds the objective proven complete.

`run_goal(conversation, objective, judge_llm)` drives a conversation; `GoalController` holds
the decisions (no conversation I/O) for other drivers such as the agent server.
"""

from openhands.sdk.conversation.goal.controller import MAX_JUDGE_FAILURES, GoalController
from openhands.sdk.conversation.goal.judge import judge_goal, parse_verdict
from openhands.sdk.conversation.goal.models import (
    GoalContinue,
    GoalDone,
    GoalOutcome,
    GoalRequirement,
    GoalStatus,
    GoalStatusName,
    GoalStep,
    GoalVerdict,
    VerifyResult,
)
from openhands.sdk.conversation.goal.runner import (
    GOAL_STATE_KEY,
    drive_goal,
    last_goal_status,
    resume_goal,
    run_goal,
)
from openhands.sdk.conversation.goal.transcript import render_transcript
from openhands.sdk.conversation.goal.verify import Verifier, run_verify_command

__all__ = [
    "GOAL_STATE_KEY",
    "MAX_JUDGE_FAILURES",
    "GoalContinue",
    "GoalController",
    "GoalDone",
    "GoalOutcome",
    "GoalRequirement",
    "GoalStatus",
    "GoalStatusName",
    "GoalStep",
    "GoalVerdict",
    "Verifier",
    "VerifyResult",
    "drive_goal",
    "judge_goal",
    "last_goal_status",
    "parse_verdict",
    "render_transcript",
    "resume_goal",
    "run_goal",
    "run_verify_command",
]
