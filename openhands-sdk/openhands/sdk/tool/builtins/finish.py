"""`finish`: ends the current run with a message to the user."""

from collections.abc import Sequence
from typing import Any

from openhands.sdk.tool.schema import Action, Observation
from openhands.sdk.tool.tool import ToolAnnotations, ToolDefinition, ToolExecutor
from pydantic import Field

DESCRIPTION = (
    "Call this when the task is complete (or cannot be completed) to end your turn. "
    "`message` summarizes what you did and how it was verified."
)


class FinishAction(Action):
    """Arguments of `finish`."""

    message: str = Field(default="", description="Final message to the user: what was done.")


class FinishObservation(Observation):
    """The result of `finish`: its message."""


class FinishExecutor(ToolExecutor[FinishAction, FinishObservation]):
    """Answers `finish` with its own message."""

    def __call__(self, action: FinishAction, conversation: Any = None) -> FinishObservation:
        return FinishObservation.from_text(action.message)


class FinishTool(ToolDefinition[FinishAction, FinishObservation]):
    """Ends the current run with a message to the user."""

    description = DESCRIPTION
    action_type = FinishAction
    observation_type = FinishObservation
    # model_construct: a validated instance would build ToolAnnotations' schema at import.
    annotations = ToolAnnotations.model_construct(
        title="finish",
        readOnlyHint=True,
        destructiveHint=False,
        idempotentHint=True,
        openWorldHint=False,
    )

    @classmethod
    def create(
        cls, context: Any = None, *, conv_state: Any = None, **params: Any
    ) -> Sequence["FinishTool"]:
        """The tool with its executor (it takes no params)."""
        tools = super().create(context, conv_state=conv_state, **params)
        return [tool.set_executor(FinishExecutor()) for tool in tools]

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        # Runs without an executor too: an agent builds its built-ins as `FinishTool()`.
        return (self.executor or FinishExecutor())(action, conversation)
