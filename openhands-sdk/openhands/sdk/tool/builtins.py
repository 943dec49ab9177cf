"""Built-in tools every agent has: `finish` ends a run, `think` records a thought."""

from __future__ import annotations

from typing import Any

from openhands.sdk.tool.tool import Action, Observation, ToolDefinition
from pydantic import Field


class FinishAction(Action):
    """Arguments of `finish`."""

    message: str = Field(default="", description="Final message to the user: what was done.")


class FinishTool(ToolDefinition):
    """Ends the current run with a message to the user."""

    description = (
        "Call this when the task is complete (or cannot be completed) to end your turn. "
        "`message` summarizes what you did and how it was verified."
    )
    action_type = FinishAction

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        return Observation(content=action.message)


class ThinkAction(Action):
    """Arguments of `think`."""

    thought: str = Field(description="The thought to record.")


class ThinkTool(ToolDefinition):
    """Lets the agent write down reasoning without side effects."""

    description = "Record a thought (planning, reasoning). It changes nothing and returns at once."
    action_type = ThinkAction

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        return Observation(content="Your thought has been logged.")


BUILTIN_TOOLS: tuple[type[ToolDefinition], ...] = (FinishTool, ThinkTool)
