"""Events that carry chat messages and the system prompt."""

from __future__ import annotations

from typing import Any

from openhands.sdk.event.base import EventSource, LLMConvertibleEvent
from openhands.sdk.llm.message import Message, TextContent
from pydantic import Field


class SystemPromptEvent(LLMConvertibleEvent):
    """The system prompt and tool schemas the agent started with."""

    source: EventSource = "agent"
    system_prompt: TextContent
    tools: list[dict[str, Any]] = Field(default_factory=list)

    def to_llm_message(self) -> Message:
        return Message(role="system", content=[self.system_prompt])


class MessageEvent(LLMConvertibleEvent):
    """A chat message from the user or the agent."""

    llm_message: Message

    def to_llm_message(self) -> Message:
        return self.llm_message
