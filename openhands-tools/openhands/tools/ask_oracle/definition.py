"""The `ask_oracle` tool: its action, observation and definition."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final, Self

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.tool import (
    Action,
    Observation,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    register_tool,
)
from pydantic import Field

__all__ = ["ORACLE_PROFILE_NAME", "AskOracleAction", "AskOracleObservation", "AskOracleTool"]

ORACLE_PROFILE_NAME: Final[str] = "oracle"
"""The LLM profile the Oracle is: save one under this name (`LLMProfileStore().save`)."""

DESCRIPTION = (
    "Ask the Oracle, a stronger model, for a second opinion on a hard question.\n"
    "Use it when you are stuck, unsure, or choosing between approaches. It sees only your "
    "question and the context you give (not this conversation), cannot use tools and "
    "does no work: it answers with a recommendation. Follow it unless you have a clear "
    "reason not to."
)


class AskOracleAction(Action):
    """Arguments of `ask_oracle`."""

    question: str = Field(description="The question or dilemma, stated on its own.")
    context: str | None = Field(
        default=None,
        description="What the Oracle needs to know: what you tried, constraints, the option "
        "you lean to.",
    )


class AskOracleObservation(Observation):
    """The Oracle's answer (or why it could not answer)."""


class AskOracleTool(ToolDefinition[AskOracleAction, AskOracleObservation]):
    """A second opinion from the `oracle` LLM profile."""

    user_selectable: ClassVar[bool] = False
    description = DESCRIPTION
    action_type = AskOracleAction
    observation_type = AskOracleObservation

    @classmethod
    def create(cls, context: ToolContext | None = None, **params: Any) -> Sequence[Self]:
        """The tool (it takes no params; the Oracle is whatever profile `oracle` holds)."""
        del context
        if params:
            raise InvalidArgumentError(
                f"ask_oracle takes no params, got {sorted(params)}: save the model to ask as "
                f"the LLM profile {ORACLE_PROFILE_NAME!r} instead."
            )
        from openhands.tools.ask_oracle.impl import AskOracleExecutor

        return [
            cls(
                executor=AskOracleExecutor(),
                annotations=ToolAnnotations(
                    readOnlyHint=True,
                    destructiveHint=False,
                    idempotentHint=False,
                    openWorldHint=True,
                ),
            )
        ]


register_tool(AskOracleTool.name, AskOracleTool)
