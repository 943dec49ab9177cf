"""`think`: lets the agent write down reasoning without side effects."""

from collections.abc import Sequence
from typing import Any

from openhands.sdk.tool.schema import Action, Observation
from openhands.sdk.tool.tool import ToolAnnotations, ToolDefinition, ToolExecutor
from pydantic import Field

DESCRIPTION = "Record a thought (planning, reasoning). It changes nothing and returns at once."
LOGGED = "Your thought has been logged."


class ThinkAction(Action):
    """Arguments of `think`."""

    thought: str = Field(description="The thought to record.")


class ThinkObservation(Observation):
    """The result of `think`: an acknowledgement."""


class ThinkExecutor(ToolExecutor[ThinkAction, ThinkObservation]):
    """Acknowledges a thought."""

    def __call__(self, action: ThinkAction, conversation: Any = None) -> ThinkObservation:
        return ThinkObservation.from_text(LOGGED)


class ThinkTool(ToolDefinition[ThinkAction, ThinkObservation]):
    """Lets the agent write down reasoning without side effects."""

    description = DESCRIPTION
    action_type = ThinkAction
    observation_type = ThinkObservation
    # model_construct: a validated instance would build ToolAnnotations' schema at import.
    annotations = ToolAnnotations.model_construct(
        title="think",
        readOnlyHint=True,
        destructiveHint=False,
        idempotentHint=True,
        openWorldHint=False,
    )

    @classmethod
    def create(
        cls, context: Any = None, *, conv_state: Any = None, **params: Any
    ) -> Sequence["ThinkTool"]:
        """The tool with its executor (it takes no params)."""
        tools = super().create(context, conv_state=conv_state, **params)
        return [tool.set_executor(ThinkExecutor()) for tool in tools]

    def __call__(self, action: Any, conversation: Any = None) -> Observation:
        # Runs without an executor too: an agent builds its built-ins as `ThinkTool()`.
        return (self.executor or ThinkExecutor())(action, conversation)
