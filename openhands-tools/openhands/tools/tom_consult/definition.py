"""`tom_consult` and `sleeptime_compute`: the tool definitions (actions and observations:
`schema.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from openhands.sdk.tool import (
    Action,
    ToolContext,
    ToolDefinition,
    register_tool,
)
from openhands.sdk.tool.resources import DeclaredResources
from openhands.tools.params import parse_params
from openhands.tools.tom_consult.schema import (
    ConsultTomAction,
    ConsultTomObservation,
    SleeptimeComputeAction,
    SleeptimeComputeObservation,
)
from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ConsultTomAction",
    "ConsultTomObservation",
    "SleeptimeComputeAction",
    "SleeptimeComputeObservation",
    "SleeptimeComputeTool",
    "TomConsultTool",
    "TomParams",
]

CONSULT_DESCRIPTION = (
    "Consult Tom, an agent that models this user, when their instructions are vague or you "
    "are unsure what they really want. By default Tom reads the user's last message; set "
    "use_user_message=false and custom_query to ask your own question."
)
SLEEPTIME_DESCRIPTION = (
    "Index this user's stored conversations so Tom learns their preferences and habits. "
    "Use it at the end of a conversation or when asked."
)


class TomParams(BaseModel):
    """The `params` of both Tom tools."""

    model_config = ConfigDict(extra="forbid")

    enable_rag: bool = Field(default=True, description="Let Tom retrieve from its user model.")
    llm_model: str | None = Field(default=None, description="The model Tom's agent uses.")
    api_key: str | None = Field(default=None, description="Its key (kept in memory only).")
    api_base: str | None = Field(default=None, description="Its base URL.")
    data_dir: str = Field(
        default="~/.openhands",
        description="Tom's user model lives here; sleeptime_compute reads the conversations "
        "stored in its conversations/ folder.",
    )


def _executor(params: dict[str, Any]) -> Any:
    settings = parse_params(TomParams, "tom_consult", params)
    from openhands.tools.tom_consult.executor import TomConsultExecutor

    return TomConsultExecutor(**settings.model_dump())


class TomConsultTool(ToolDefinition[ConsultTomAction, ConsultTomObservation]):
    """Advice from Tom about what the user means."""

    description = CONSULT_DESCRIPTION
    action_type = ConsultTomAction
    observation_type = ConsultTomObservation

    def declared_resources(self, action: Action) -> DeclaredResources:
        """A consultation changes nothing here: it may run beside other calls."""
        del action
        return DeclaredResources(declared=True)

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[Self]:
        """The tool (params: `TomParams`); Tom is loaded on its first use."""
        del context
        return [cls(executor=_executor(params))]


class SleeptimeComputeTool(ToolDefinition[SleeptimeComputeAction, SleeptimeComputeObservation]):
    """Indexes stored conversations for Tom."""

    description = SLEEPTIME_DESCRIPTION
    action_type = SleeptimeComputeAction
    observation_type = SleeptimeComputeObservation

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[Self]:
        """The tool (params: `TomParams`); Tom is loaded on its first use."""
        del context
        return [cls(executor=_executor(params))]


register_tool(TomConsultTool.name, TomConsultTool)
register_tool(SleeptimeComputeTool.name, SleeptimeComputeTool)
