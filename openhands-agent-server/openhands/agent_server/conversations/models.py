"""Request and response models of the conversation routes."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from openhands.sdk.agent import Agent
from openhands.sdk.conversation import ConversationExecutionStatus
from openhands.sdk.hooks import HookConfig
from openhands.sdk.llm import ImageContent, Message, TextContent
from openhands.sdk.llm.metrics import Metrics
from openhands.sdk.workspace import LocalWorkspace
from pydantic import BaseModel, ConfigDict, Field, field_validator


class SendMessageRequest(BaseModel):
    """A user message to append to a conversation, optionally starting a run."""

    model_config = ConfigDict(extra="forbid")

    role: str = Field(default="user", description="Only 'user' is accepted.")
    content: list[TextContent | ImageContent] = Field(
        min_length=1, description="Message parts, e.g. [{'type': 'text', 'text': 'hi'}]."
    )
    run: bool = Field(default=False, description="Start a run after appending the message.")

    @field_validator("role")
    @classmethod
    def _user_only(cls, value: str) -> str:
        if value != "user":
            raise ValueError(f"role must be 'user' (got {value!r}); agents speak for themselves")
        return value

    @field_validator("content")
    @classmethod
    def _not_blank(
        cls, value: list[TextContent | ImageContent]
    ) -> list[TextContent | ImageContent]:
        has_text = any(isinstance(p, TextContent) and p.text.strip() for p in value)
        if not has_text and not any(isinstance(p, ImageContent) for p in value):
            raise ValueError("content must hold a non-blank text part or an image")
        return value

    def to_message(self) -> Message:
        """The SDK message this request carries."""
        return Message(role="user", content=list(self.content))


class StartConversationRequest(BaseModel):
    """Create a conversation (or fetch it, if `conversation_id` already exists)."""

    model_config = ConfigDict(extra="forbid")

    agent: Agent = Field(
        description="The agent: {'kind': 'Agent', 'llm': {...}, 'tools': [{'name': 'terminal'}]}."
    )
    workspace: LocalWorkspace | None = Field(
        default=None,
        description="{'kind': 'LocalWorkspace', 'working_dir': '...'}; default: a folder named "
        "after the conversation id under OH_WORKSPACE_PATH.",
    )
    conversation_id: uuid.UUID | None = Field(default=None, description="Default: a new UUID.")
    initial_message: SendMessageRequest | None = Field(
        default=None, description="A first user message; it is sent and the agent is run."
    )
    max_iterations: int = Field(default=500, ge=1, description="Agent steps allowed per run.")
    hook_config: HookConfig | None = Field(default=None, description="Command hooks (Stop, ...).")


class ConversationInfo(BaseModel):
    """A conversation as clients see it (the agent's secrets are never included)."""

    id: uuid.UUID
    agent: dict[str, Any] = Field(description="The agent spec, with `llm.api_key` redacted.")
    workspace: LocalWorkspace
    execution_status: ConversationExecutionStatus
    title: str | None = None
    created_at: datetime
    updated_at: datetime
    metrics: dict[str, Metrics] = Field(
        default_factory=dict, description="Cost and tokens per LLM usage_id."
    )
    goal: dict[str, Any] | None = Field(
        default=None, description="The latest goal status (GoalStatus), or null."
    )


class ConversationPage(BaseModel):
    """One page of a conversation search."""

    items: list[ConversationInfo]
    next_page_id: str | None = Field(
        default=None, description="Pass as `page_id` to get the next page; null on the last."
    )
