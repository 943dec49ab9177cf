"""`tom_consult` and `sleeptime_compute`: actions, observations and tool definitions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from openhands.sdk.llm import ImageContent, TextContent
from openhands.sdk.tool import (
    Action,
    Observation,
    ToolContext,
    ToolDefinition,
    register_tool,
)
from openhands.sdk.tool.resources import DeclaredResources
from openhands.tools.params import parse_params
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


class ConsultTomAction(Action):
    """Arguments of `tom_consult`."""

    reason: str = Field(description="Briefly, why you need Tom's advice.")
    use_user_message: bool = Field(
        default=True,
        description="Ask about the user's last message (true) or about custom_query (false).",
    )
    custom_query: str | None = Field(
        default=None, description="Your own question for Tom (with use_user_message=false)."
    )


class SleeptimeComputeAction(Action):
    """Arguments of `sleeptime_compute` (none)."""


class ConsultTomObservation(Observation):
    """Tom's advice."""

    suggestions: str = Field(default="", description="Tom's suggestions.")
    confidence: float | None = Field(default=None, description="Tom's confidence, 0 to 1.")
    reasoning: str | None = Field(default=None, description="Why Tom suggests it.")

    @property
    def to_llm_content(self) -> list[TextContent | ImageContent]:
        """The suggestions, then the reasoning and confidence when Tom gave them."""
        if not self.suggestions:
            return [TextContent(text="Tom gave no suggestions.")]
        parts = [f"Tom's advice:\n{self.suggestions}"]
        if self.reasoning:
            parts.append(f"Reasoning: {self.reasoning}")
        if self.confidence is not None:
            parts.append(f"Confidence: {self.confidence:.0%}")
        return [TextContent(text="\n".join(parts))]


class SleeptimeComputeObservation(Observation):
    """What `sleeptime_compute` indexed."""

    message: str = Field(default="", description="What happened.")
    sessions_processed: int = Field(default=0, description="Conversations indexed now.")

    @property
    def to_llm_content(self) -> list[TextContent | ImageContent]:
        """The count and the message."""
        return [
            TextContent(text=f"Indexed {self.sessions_processed} conversation(s). {self.message}")
        ]


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
