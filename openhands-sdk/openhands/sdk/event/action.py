"""Events for tool calls, their results and their failures."""

from __future__ import annotations

from typing import Any

from openhands.sdk.event.base import EventSource, LLMConvertibleEvent
from openhands.sdk.llm.message import (
    ImageContent,
    Message,
    MessageToolCall,
    TextContent,
    scrub_surrogates,
)
from pydantic import Field, field_validator


class ActionEvent(LLMConvertibleEvent):
    """The agent called a tool. Calls made in one LLM reply share `llm_response_id`."""

    source: EventSource = "agent"
    thought: list[TextContent] = Field(default_factory=list)
    tool_name: str
    tool_call_id: str
    tool_call: MessageToolCall
    action: dict[str, Any] | None = Field(
        default=None, description="The validated arguments, or None when validation failed."
    )
    llm_response_id: str = ""

    def to_llm_message(self) -> Message:
        return Message(role="assistant", content=list(self.thought), tool_calls=[self.tool_call])


class ObservationEvent(LLMConvertibleEvent):
    """A tool's result, answering one `ActionEvent`."""

    source: EventSource = "environment"
    tool_name: str
    tool_call_id: str
    action_id: str
    content: list[TextContent | ImageContent] = Field(default_factory=list)
    observation: dict[str, Any] = Field(default_factory=dict)
    is_error: bool = False

    @property
    def text(self) -> str:
        """The observation's text parts joined."""
        return "\n".join(p.text for p in self.content if isinstance(p, TextContent))

    def to_llm_message(self) -> Message:
        return Message(
            role="tool",
            content=list(self.content),
            tool_call_id=self.tool_call_id,
            name=self.tool_name,
        )


class AgentErrorEvent(LLMConvertibleEvent):
    """A tool call the agent made could not be executed (unknown tool, bad arguments...).

    The agent sees the error as the tool's answer on its next step and can correct itself.
    """

    source: EventSource = "agent"
    tool_name: str
    tool_call_id: str
    error: str

    @field_validator("error", mode="after")
    @classmethod
    def _encodable_error(cls, value: str) -> str:
        # A tool's exception text may quote an undecodable path; the event must stay writable.
        return scrub_surrogates(value)

    def to_llm_message(self) -> Message:
        return Message(
            role="tool",
            content=[TextContent(text=f"Error: {self.error}")],
            tool_call_id=self.tool_call_id,
            name=self.tool_name,
        )


class UserRejectObservation(LLMConvertibleEvent):
    """The user (or a PreToolUse hook) refused to let a tool call run."""

    source: EventSource = "user"
    tool_name: str
    tool_call_id: str
    action_id: str
    rejection_reason: str = "The user rejected this action."

    def to_llm_message(self) -> Message:
        return Message(
            role="tool",
            content=[TextContent(text=f"Action rejected: {self.rejection_reason}")],
            tool_call_id=self.tool_call_id,
            name=self.tool_name,
        )
