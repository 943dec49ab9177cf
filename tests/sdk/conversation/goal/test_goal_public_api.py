"""The public surface of openhands.sdk.conversation.goal, pinned."""

from __future__ import annotations

import subprocess
import sys

import openhands.sdk.conversation.goal as goal

EXPECTED = [
    "GOAL_STATE_KEY",
    "MAX_JUDGE_FAILURES",
    "ROUND_ENDING_ERRORS",
    "SNAPSHOT",
    "ApprovalDecided",
    "AskJudge",
    "AwaitApproval",
    "ConversationSteps",
    "DriverStep",
    "Finish",
    "GoalContinue",
    "GoalController",
    "GoalDone",
    "GoalError",
    "GoalJudge",
    "GoalLimits",
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
    "run_goal",
    "run_verify_command",
]


def test_exported_names_are_pinned() -> None:
    assert goal.__all__ == EXPECTED
    for name in EXPECTED:
        assert hasattr(goal, name), name


def test_importing_the_goal_package_does_not_import_litellm() -> None:
    code = (
        "import sys, openhands.sdk.conversation.goal; "
        "sys.exit(1 if 'litellm' in sys.modules else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0
