"""Tool contracts: `Action`/`Observation` models, `ToolExecutor`, `ToolDefinition`, `Tool`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from openhands.sdk.llm.message import ImageContent, TextContent, scrub_surrogates
from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation


class Action(BaseModel):
    """The validated arguments of one tool call; its JSON schema is what the LLM sees."""

    model_config = ConfigDict(defer_build=True, extra="forbid")


class Observation(BaseModel):
    """What a tool returns. `content` is the text the LLM reads back."""

    model_config = ConfigDict(defer_build=True)

    content: str = ""
    is_error: bool = False

    @field_validator("*", mode="after")
    @classmethod
    def _encodable_text(cls, value: Any) -> Any:
        # Undecodable file names and bytes reach Python as lone surrogates, which JSON cannot
        # encode: one such character would make the event unwritable and fail the whole run.
        return scrub_surrogates(value) if isinstance(value, str) else value

    def to_llm_content(self) -> list[TextContent | ImageContent]:
        """The content parts given back to the LLM as the tool's answer."""
        return [TextContent(text=self.content)]


class ToolExecutor(Protocol):
    """Runs one validated action and returns its observation."""

    def __call__(self, action: Any, conversation: BaseConversation | None = None) -> Observation:
        """Execute `action` on behalf of `conversation`."""
        ...


@dataclass
class ToolContext:
    """What a tool factory may use when it builds tools for one conversation."""

    working_dir: str
    persistence_dir: str | None = None
    conversation_id: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)


def _snake_name(class_name: str) -> str:
    base = class_name.removesuffix("Tool") or class_name
    return re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower()


class ToolDefinition:
    """A tool the agent can call: its name, description, Action model and executor.

    Subclasses set `action_type` (and usually `description`); `name` defaults to the
    snake_case class name without `Tool` (`TerminalTool.name == "terminal"`). Override
    `create` to build the tool for a conversation from a `ToolContext` and params.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    action_type: ClassVar[type[Action]] = Action
    observation_type: ClassVar[type[Observation]] = Observation

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = _snake_name(cls.__name__)

    def __init__(self, executor: ToolExecutor | None = None) -> None:
        self.executor = executor

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ToolDefinition]:
        """Build this tool for one conversation; the default takes no params."""
        if params:
            raise ValueError(f"Tool {cls.name!r} takes no params, got {sorted(params)}")
        return [cls()]

    def to_openai_tool(self) -> dict[str, Any]:
        """The function schema given to the LLM, derived from `action_type`."""
        schema = self.action_type.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description or (self.__doc__ or "").strip(),
                "parameters": schema,
            },
        }

    def __call__(self, action: Action, conversation: BaseConversation | None = None) -> Observation:
        """Run the action through this tool's executor."""
        if self.executor is None:
            raise NotImplementedError(f"Tool {self.name!r} has no executor")
        return self.executor(action, conversation)

    def close(self) -> None:
        """Release resources held by the executor (processes, files)."""
        closer = getattr(self.executor, "close", None)
        if callable(closer):
            closer()


class Tool(BaseModel):
    """The spec an agent is built with: a registered tool name plus its params."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    name: str = Field(
        min_length=1, description="Registered name, e.g. 'terminal' or 'TerminalTool'."
    )
    params: dict[str, Any] = Field(default_factory=dict)
