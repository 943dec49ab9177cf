"""Goals: run an agent until an independent judge finds the objective proven complete.

`run_goal(conversation, objective, judge_llm)` drives a conversation; `GoalController` holds
every decision (no conversation I/O) for other drivers such as the agent server; `GoalRequest`
is the one model of a goal's options, shared by the SDK, the server and the remote client.
"""

from openhands.sdk.conversation.goal.controller import (
    MAX_JUDGE_FAILURES,
    ROUND_ENDING_ERRORS,
    GoalController,
)
from openhands.sdk.conversation.goal.errors import (
    GoalError,
    InvalidGoalError,
    NoResumableGoalError,
)
from openhands.sdk.conversation.goal.judge import JudgeAnswer, judge_goal, parse_verdict
from openhands.sdk.conversation.goal.models import (
    GoalContinue,
    GoalDone,
    GoalInterruption,
    GoalOutcome,
    GoalPhase,
    GoalRequirement,
    GoalRound,
    GoalStatus,
    GoalStatusName,
    GoalStep,
    GoalVerdict,
    RunEnd,
    VerifyResult,
)
from openhands.sdk.conversation.goal.options import GoalLimits, GoalRequest
from openhands.sdk.conversation.goal.runner import (
    StatusCallback,
    drive_goal,
    resume_goal,
    run_goal,
)
from openhands.sdk.conversation.goal.status import (
    GOAL_SENDER,
    GOAL_STATE_KEY,
    GoalStatusWriter,
    goal_status_from,
    last_goal_status,
)
from openhands.sdk.conversation.goal.transcript import render_transcript
from openhands.sdk.conversation.goal.verify import Verifier, run_verify_command

__all__ = [
    "GOAL_SENDER",
    "GOAL_STATE_KEY",
    "MAX_JUDGE_FAILURES",
    "ROUND_ENDING_ERRORS",
    "GoalContinue",
    "GoalController",
    "GoalDone",
    "GoalError",
    "GoalInterruption",
    "GoalLimits",
    "GoalOutcome",
    "GoalPhase",
    "GoalRequest",
    "GoalRequirement",
    "GoalRound",
    "GoalStatus",
    "GoalStatusName",
    "GoalStatusWriter",
    "GoalStep",
    "GoalVerdict",
    "InvalidGoalError",
    "JudgeAnswer",
    "NoResumableGoalError",
    "RunEnd",
    "StatusCallback",
    "Verifier",
    "VerifyResult",
    "drive_goal",
    "goal_status_from",
    "judge_goal",
    "last_goal_status",
    "parse_verdict",
    "render_transcript",
    "resume_goal",
    "run_goal",
    "run_verify_command",
]
