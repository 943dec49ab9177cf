"""The public surface of openhands.sdk.conversation.goal, pinned."""

from __future__ import annotations

import subprocess
import sys

import openhands.sdk.conversation.goal as goal

EXPECTED = [
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
