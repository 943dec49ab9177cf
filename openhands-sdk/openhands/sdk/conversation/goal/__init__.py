"""Goals: run an agent until an independent judge finds the objective proven complete.

`run_goal(conversation, objective, judge_llm)` drives a conversation; `GoalController` is the
goal loop as a step machine holding every rule (no I/O), which every driver interprets (the
steps are in `goal.steps`); `GoalRequest` is the one model of a goal's options, shared by the
SDK, the server and the remote client.
"""

from openhands.sdk.conversation.goal.controller import GoalController
from openhands.sdk.conversation.goal.conversation_steps import (
    ConversationSteps,
    GoalStop,
    StatusCallback,
)
from openhands.sdk.conversation.goal.errors import (
    GoalError,
    GoalStepError,
    InvalidGoalError,
    NoResumableGoalError,
)
from openhands.sdk.conversation.goal.judge import GoalJudge, JudgeAnswer, judge_goal, parse_verdict
from openhands.sdk.conversation.goal.limits import GoalLimits, GoalLimitsChange
from openhands.sdk.conversation.goal.machine import ROUND_ENDING_ERRORS
from openhands.sdk.conversation.goal.models import (
    GoalContinue,
    GoalDone,
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
from openhands.sdk.conversation.goal.options import GoalRequest
from openhands.sdk.conversation.goal.resuming import resume_limits
from openhands.sdk.conversation.goal.runner import drive_goal, resume_goal, run_goal
from openhands.sdk.conversation.goal.snapshot import MAX_JUDGE_FAILURES, SNAPSHOT, GoalSnapshot
from openhands.sdk.conversation.goal.status import (
    GOAL_SENDER,
    GOAL_STATE_KEY,
    GoalStatusWriter,
    goal_status_from,
    interrupted_by_restart,
    last_goal_status,
)
from openhands.sdk.conversation.goal.steps import (
    ApprovalDecided,
    AskJudge,
    AwaitApproval,
    CheckpointTaken,
    DriverStep,
    Finish,
    Judged,
    MessageRefused,
    RecordStatus,
    RunAgent,
    RunEnded,
    RunVerify,
    RunWatch,
    StatusRecorded,
    StepResult,
    Stopped,
    TakeCheckpoint,
    Verified,
)
from openhands.sdk.conversation.goal.transcript import render_transcript
from openhands.sdk.conversation.goal.verify import Verifier, perform_verify, run_verify_command

__all__ = [
    "GOAL_SENDER",
    "GOAL_STATE_KEY",
    "MAX_JUDGE_FAILURES",
    "ROUND_ENDING_ERRORS",
    "SNAPSHOT",
    "ApprovalDecided",
    "AskJudge",
    "AwaitApproval",
    "CheckpointTaken",
    "ConversationSteps",
    "DriverStep",
    "Finish",
    "GoalContinue",
    "GoalController",
    "GoalDone",
    "GoalError",
    "GoalJudge",
    "GoalLimits",
    "GoalLimitsChange",
    "GoalOutcome",
    "GoalPhase",
    "GoalRequest",
    "GoalRequirement",
    "GoalRound",
    "GoalSnapshot",
    "GoalStatus",
    "GoalStatusName",
    "GoalStatusWriter",
    "GoalStep",
    "GoalStepError",
    "GoalStop",
    "GoalVerdict",
    "InvalidGoalError",
    "JudgeAnswer",
    "Judged",
    "MessageRefused",
    "NoResumableGoalError",
    "RecordStatus",
    "RunAgent",
    "RunEnd",
    "RunEnded",
    "RunVerify",
    "RunWatch",
    "StatusCallback",
    "StatusRecorded",
    "StepResult",
    "Stopped",
    "TakeCheckpoint",
    "Verified",
    "Verifier",
    "VerifyResult",
    "drive_goal",
    "goal_status_from",
    "interrupted_by_restart",
    "judge_goal",
    "last_goal_status",
    "parse_verdict",
    "perform_verify",
    "render_transcript",
    "resume_goal",
    "resume_limits",
    "run_goal",
    "run_verify_command",
]
