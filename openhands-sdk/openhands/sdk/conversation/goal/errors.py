"""Goal errors: a goal asked for wrongly, or a resume with nothing to resume.

GoalError                     base class (under OpenHandsError)
├── InvalidGoalError          (ValueError) a goal option is invalid; the message names it
├── NoResumableGoalError      (ValueError) no goal, or the last one ended; start a new one
├── NoGoalStartedError        (ValueError) waiting for a goal before starting one
└── GoalStepError             (ValueError) a driver used the step machine wrongly
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openhands.sdk.errors import OpenHandsError

if TYPE_CHECKING:
    from pydantic import ValidationError


class GoalError(OpenHandsError):
    """Base class of goal errors."""


class InvalidGoalError(GoalError, ValueError):
    """A goal option is invalid (blank objective, negative budget, ...); `field` names it."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def invalid_goal_error(exc: ValidationError) -> InvalidGoalError:
    """The `InvalidGoalError` for a goal body or goal limits pydantic refused: the first
    problem, prefixed with the field it names (one wording for every way to start or resume
    a goal)."""
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"]) or None
    message = str(error["msg"]).removeprefix("Value error, ")
    if field and not message.startswith(field):
        message = f"{field}: {message}"
    return InvalidGoalError(message, field)


class NoResumableGoalError(GoalError, ValueError):
    """There is nothing to resume: no goal was started, or the last one already ended.

    `code` is the machine-readable reason the agent server answers as `detail`.
    """

    code = "no_resumable_goal"


class NoGoalStartedError(GoalError, ValueError):
    """A goal was waited for (or read) on a conversation where none was started: call
    `start_goal()` first."""


class GoalStepError(GoalError, ValueError):
    """A driver used `GoalController` wrongly: a result that does not answer the pending step,
    `next()` before `begin()`, a second `begin()`; the message says what to call instead."""
