"""What `tom_consult` and `sleeptime_compute` take and return."""

from __future__ import annotations

from openhands.sdk.llm import ImageContent, TextContent
from openhands.sdk.tool import Action, Observation
from pydantic import Field

__all__ = [
    "ConsultTomAction",
    "ConsultTomObservation",
    "SleeptimeComputeAction",
    "SleeptimeComputeObservation",
]


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
