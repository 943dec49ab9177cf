"""The `ask_oracle` tool definition (its action and observation: `schema.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Self

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.tool import (
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    register_tool,
)
from openhands.tools.ask_oracle.schema import (
    ORACLE_PROFILE_NAME,
    AskOracleAction,
    AskOracleObservation,
)

__all__ = ["ORACLE_PROFILE_NAME", "AskOracleAction", "AskOracleObservation", "AskOracleTool"]


DESCRIPTION = (
    "Ask the Oracle, a stronger model, for a second opinion on a hard question.\n"
    "Use it when you are stuck, unsure, or choosing between approaches. It sees only your "
    "question and the context you give (not this conversation), cannot use tools and "
    "does no work: it answers with a recommendation. Follow it unless you have a clear "
    "reason not to."
)


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
