"""Events for tool calls, their results and their failures.

`ActionEvent.action` and `ObservationEvent.observation` hold the tool's typed `Action` and
`Observation` objects; they are stored as `{"kind": "<class name>", ...fields}` and read back
as the same classes (see `openhands.sdk.tool.schema` for what happens when a class is not
loaded). Logs written before these fields were typed still load.
"""

from typing import Any, ClassVar, Literal

from openhands.sdk.event.base import EventSource, LLMConvertibleEvent
from openhands.sdk.event.to_messages import HistoryRole
from openhands.sdk.llm.message import (
    ImageContent,
    Message,
    MessageToolCall,
    ReasoningItemModel,
    RedactedThinkingBlock,
    TextContent,
    ThinkingBlock,
    scrub_surrogates,
)
from openhands.sdk.tool.schema import Action, Observation
from openhands.sdk.tool.stored import (
    action_from_data,
    dump_with_kind,
    observation_from_data,
)
from pydantic import Field, SerializationInfo, field_serializer, field_validator, model_validator


def _empty(value: Any) -> bool:
    return not value


class ActionEvent(LLMConvertibleEvent):
    """The agent called a tool. Calls made in one LLM reply share `llm_response_id`."""

    history_role: ClassVar[HistoryRole | None] = "tool_call"
    source: EventSource = "agent"
    thought: list[TextContent] = Field(default_factory=list)
    reasoning_content: str | None = Field(
        default=None, description="The reasoning the model gave with this reply.", exclude_if=_empty
    )
    thinking_blocks: list[ThinkingBlock | RedactedThinkingBlock] = Field(
        default_factory=list,
        description="Anthropic thinking blocks of the reply.",
        exclude_if=_empty,
    )
    responses_reasoning_item: ReasoningItemModel | None = Field(
        default=None, description="OpenAI Responses reasoning item of the reply.", exclude_if=_empty
    )
    tool_name: str
    tool_call_id: str
    tool_call: MessageToolCall
    action: Action | None = Field(
        default=None, description="The validated arguments, or None when validation failed."
    )
    llm_response_id: str = ""
    security_risk: str = Field(
        default="UNKNOWN",
        description="The risk the LLM or an analyzer gave the call: UNKNOWN, LOW, MEDIUM, HIGH.",
        exclude_if=lambda risk: str(getattr(risk, "value", risk)) == "UNKNOWN",
    )
    summary: str | None = Field(
        default=None,
        description="A short summary of the call, if the LLM gave one.",
        exclude_if=_empty,
    )
    critic_result: dict[str, Any] | None = Field(
        default=None, description="A critic's evaluation of the call, if any.", exclude_if=_empty
    )

    @field_validator("action", mode="before")
    @classmethod
    def _typed_action(cls, value: Any) -> Any:
        return None if value is None else action_from_data(value)

    @field_serializer("action")
    def _action_with_kind(self, value: Action | None, info: SerializationInfo) -> Any:
        return None if value is None else dump_with_kind(value, info.mode)

    def to_llm_message(self) -> Message:
        return Message(
            role="assistant",
            content=list(self.thought),
            tool_calls=[self.tool_call],
            reasoning_content=self.reasoning_content,
            thinking_blocks=list(self.thinking_blocks),
            responses_reasoning_item=self.responses_reasoning_item,
        )


class ObservationEvent(LLMConvertibleEvent):
    """A tool's result, answering one `ActionEvent`."""

    history_role: ClassVar[HistoryRole | None] = "tool_result"
    source: EventSource = "environment"
    tool_name: str
    tool_call_id: str
    action_id: str
    observation: Observation
    extended_content: list[TextContent] = Field(
        default_factory=list,
        description="Text the agent's context adds after the result (e.g. triggered rules).",
        exclude_if=_empty,
    )

    @model_validator(mode="before")
    @classmethod
    def _earlier_shape(cls, data: Any) -> Any:
        # Logs written before observations were typed kept the LLM's view of the result in
        # `content` and `is_error` next to an untyped `observation` dict.
        if not isinstance(data, dict) or ("content" not in data and "is_error" not in data):
            return data
        data = dict(data)
        content = data.pop("content", None)
        is_error = data.pop("is_error", None)
        stored = data.get("observation")
        if isinstance(stored, dict) and "kind" not in stored:
            stored = dict(stored)
            if content is not None:
                stored["content"] = content
            if is_error is not None:
                stored["is_error"] = is_error
            data["observation"] = stored
        elif stored is None:
            data["observation"] = {"content": content or [], "is_error": bool(is_error)}
        return data

    @field_validator("observation", mode="before")
    @classmethod
    def _typed_observation(cls, value: Any) -> Any:
        return observation_from_data(value)

    @field_serializer("observation")
    def _observation_with_kind(self, value: Observation, info: SerializationInfo) -> Any:
        return dump_with_kind(value, info.mode)

    @property
    def content(self) -> list[TextContent | ImageContent]:
        """What the LLM reads back: the observation's LLM content plus any extension."""
        return [*self.observation.to_llm_content, *self.extended_content]

    @property
    def is_error(self) -> bool:
        """Whether the tool reported a failure."""
        return self.observation.is_error

    @property
    def text(self) -> str:
        """The text the LLM reads back, parts joined by newlines."""
        return "\n".join(p.text for p in self.content if isinstance(p, TextContent))

    def to_llm_message(self) -> Message:
        return Message(
            role="tool",
            content=self.content,
            tool_call_id=self.tool_call_id,
            name=self.tool_name,
        )


class AgentErrorEvent(LLMConvertibleEvent):
    """A tool call the agent made could not be executed (unknown tool, bad arguments...).

    The agent sees the error as the tool's answer on its next step and can correct itself.
    """

    history_role: ClassVar[HistoryRole | None] = "tool_result"
    source: EventSource = "agent"
    tool_name: str
    tool_call_id: str
    error: str
    classification: dict[str, Any] | None = Field(
        default=None, description="Structured error kind, if classified.", exclude_if=_empty
    )

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

    history_role: ClassVar[HistoryRole | None] = "tool_result"
    source: EventSource = "user"
    tool_name: str
    tool_call_id: str
    action_id: str
    rejection_reason: str = "The user rejected this action."
    rejection_source: Literal["user", "hook"] = Field(
        default="user",
        description="Who refused: 'user' or 'hook'.",
        exclude_if=lambda source: source == "user",
    )

    def to_llm_message(self) -> Message:
        return Message(
            role="tool",
            content=[TextContent(text=f"Action rejected: {self.rejection_reason}")],
            tool_call_id=self.tool_call_id,
            name=self.tool_name,
        )
