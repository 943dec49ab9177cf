"""Events that carry chat messages and the system prompt."""

from typing import Any

from openhands.sdk.event.base import EventSource, LLMConvertibleEvent
from openhands.sdk.llm.message import (
    ImageContent,
    Message,
    RedactedThinkingBlock,
    TextContent,
    ThinkingBlock,
)
from pydantic import Field


def _empty(value: Any) -> bool:
    return not value


class SystemPromptEvent(LLMConvertibleEvent):
    """The system prompt and tool schemas the agent started with.

    `dynamic_context` is the per-conversation part of the prompt (date, repository, memory);
    it is sent as a second text block of the same system message.
    """

    source: EventSource = "agent"
    system_prompt: TextContent
    tools: list[dict[str, Any]] = Field(default_factory=list)
    dynamic_context: TextContent | None = Field(
        default=None,
        description="Per-conversation context sent after the static prompt.",
        exclude_if=_empty,
    )

    def to_llm_message(self) -> Message:
        content: list[TextContent | ImageContent] = [self.system_prompt]
        if self.dynamic_context is not None:
            content.append(self.dynamic_context)
        return Message(role="system", content=content)


class MessageEvent(LLMConvertibleEvent):
    """A chat message from the user or the agent.

    `extended_content` (text the agent's context adds, e.g. a triggered skill) follows the
    message's own content in what the LLM sees.
    """

    llm_message: Message
    llm_response_id: str | None = Field(
        default=None, description="The LLM reply this message came from.", exclude_if=_empty
    )
    activated_skills: list[str] = Field(
        default_factory=list, description="Skills this message triggered.", exclude_if=_empty
    )
    extended_content: list[TextContent] = Field(
        default_factory=list,
        description="Text added by the agent's context, sent after the message.",
        exclude_if=_empty,
    )
    sender: str | None = Field(
        default=None, description="Who sent it, in multi-agent setups.", exclude_if=_empty
    )
    critic_result: dict[str, Any] | None = Field(
        default=None, description="A critic's evaluation of the message, if any.", exclude_if=_empty
    )

    @property
    def reasoning_content(self) -> str:
        """The reasoning the model gave with this message ('' if none)."""
        return self.llm_message.reasoning_content or ""

    @property
    def thinking_blocks(self) -> list[ThinkingBlock | RedactedThinkingBlock]:
        """Anthropic thinking blocks of this message."""
        return list(self.llm_message.thinking_blocks)

    @property
    def visualize(self) -> str:
        """What was said as plain text, with the skills it activated and how many thinking
        blocks came with it (their text stays out: it is the model's, not the answer)."""
        lines = [f"[{self.kind} from {self.source}]"]
        if self.llm_message.text:
            lines.append(self.llm_message.text)
        if self.activated_skills:
            lines.append(f"[Activated skills: {', '.join(self.activated_skills)}]")
        if self.llm_message.thinking_blocks:
            lines.append(f"[Thinking blocks: {len(self.llm_message.thinking_blocks)}]")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.visualize

    def to_llm_message(self) -> Message:
        if not self.extended_content:
            return self.llm_message
        return self.llm_message.model_copy(
            update={"content": [*self.llm_message.content, *self.extended_content]}
        )
