"""The agent server's wire format: the JSON bodies a server and its clients exchange.

One set of pydantic models for both sides: the agent server validates requests and builds
answers with them, and `RemoteConversation` builds its requests and reads the answers with
the same classes, so a field means the same thing at both ends. The goal's start request is
`openhands.sdk.conversation.goal.GoalRequest` (the same model `run_goal` checks with).

Requests that carry secrets (an agent's or a judge's LLM key) are sent with `to_wire(model)`,
which exposes them; answers never hold one (`LLM.api_key` is dropped from every JSON dump).
This module is not imported by `import openhands.sdk`; its models build their validators on
first use (`defer_build=True`).
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime
from typing import Any, Literal

from openhands.sdk.agent.agent import Agent, AgentBase
from openhands.sdk.conversation.goal.models import GoalStatus
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.event.base import Event, UnknownEventKindError
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.message import ImageContent, Message, TextContent
from openhands.sdk.llm.metrics import Metrics
from openhands.sdk.security.confirmation_policy import ConfirmationPolicy, NeverConfirm
from openhands.sdk.security.ensemble import SecurityAnalyzer
from openhands.sdk.workspace.local import LocalWorkspace
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    ValidationError,
    field_validator,
)

__all__ = [
    "ConversationInfo",
    "ConversationPage",
    "DeleteConversationResponse",
    "ErrorDetail",
    "ErrorResponse",
    "EventPage",
    "KeptFolder",
    "ResumeGoalRequest",
    "SendMessageRequest",
    "StartConversationRequest",
    "Success",
    "to_wire",
]

logger = logging.getLogger(__name__)

_WIRE = ConfigDict(defer_build=True)
_REQUEST = ConfigDict(defer_build=True, extra="forbid")


def to_wire(model: BaseModel) -> dict[str, Any]:
    """The JSON body for a request model, secrets included (they go to a server you trust)."""
    return model.model_dump(mode="json", exclude_none=True, context={"expose_secrets": True})


# -- acknowledgements and errors ------------------------------------------------------------


class Success(BaseModel):
    """The answer of a call that only acknowledges: `{"success": true}`."""

    model_config = _WIRE

    success: Literal[True] = True


class KeptFolder(BaseModel):
    """A folder a delete left in place, and why."""

    model_config = _WIRE

    path: str
    reason: str = Field(description="Why it was kept, e.g. another conversation still uses it.")


class DeleteConversationResponse(Success):
    """The answer of DELETE /api/conversations/{id}: `{"success": true}` plus what was removed
    and what was kept (a delete removes only what that conversation made and nobody else
    uses)."""

    removed: list[str] = Field(
        default_factory=list,
        description="Folders removed: the conversation's own, and its working directory when "
        "the server made it for the conversation and no other conversation uses it.",
    )
    kept: list[KeptFolder] = Field(
        default_factory=list, description="Folders left in place (its working directory), why."
    )


class ErrorDetail(BaseModel):
    """One problem with a request: where it is (`loc`) and what is wrong (`msg`)."""

    model_config = _WIRE

    loc: list[str | int] = Field(description="Path to the bad field, e.g. ['body', 'objective'].")
    msg: str = Field(description="What is wrong and how to fix it.")
    type: str = Field(description="A machine-readable error type.")


class ErrorResponse(BaseModel):
    """The body of every error answer: a readable `message` plus the detail."""

    model_config = _WIRE

    message: str = Field(description="One line naming the field (if any) and the problem.")
    detail: str | list[ErrorDetail] = Field(
        description="A stable error code (e.g. 'no_resumable_goal'), the message again, or "
        "one entry per bad field."
    )


# -- conversations --------------------------------------------------------------------------


class SendMessageRequest(BaseModel):
    """A user message to append to a conversation, optionally starting a run."""

    model_config = _REQUEST

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

    @classmethod
    def of(cls, message: Message, *, run: bool = False) -> SendMessageRequest:
        """The request carrying a user `message` (ValueError if it is blank)."""
        return cls(content=list(message.content), run=run)

    def to_message(self) -> Message:
        """The SDK message this request carries."""
        return Message(role="user", content=list(self.content))


class StartConversationRequest(BaseModel):
    """Create a conversation (or fetch it, if `conversation_id` already exists)."""

    model_config = _REQUEST

    agent: Agent = Field(
        description="The agent: {'kind': 'Agent', 'llm': {...}, 'tools': [{'name': 'terminal'}]}."
    )
    workspace: LocalWorkspace | None = Field(
        default=None,
        description="{'kind': 'LocalWorkspace', 'working_dir': '...'} on the server (a relative "
        "path resolves against the server's current directory); default: a folder named after "
        "the conversation id under OH_WORKSPACE_PATH, removed with the conversation.",
    )
    conversation_id: uuid.UUID | None = Field(default=None, description="Default: a new UUID.")
    initial_message: SendMessageRequest | None = Field(
        default=None, description="A first user message; it is sent and the agent is run."
    )
    max_iterations: int = Field(default=500, ge=1, description="Agent steps allowed per run.")
    hook_config: HookConfig | None = Field(default=None, description="Command hooks (Stop, ...).")
    confirmation_policy: ConfirmationPolicy = Field(
        default_factory=NeverConfirm,
        description='Which tool calls wait for approval: {"kind": "AlwaysConfirm"}, '
        '{"kind": "ConfirmRisky", "threshold": "HIGH"} or the default {"kind": "NeverConfirm"}.',
    )
    security_analyzer: SecurityAnalyzer | None = Field(
        default=None,
        description='What rates each call\'s risk, e.g. {"kind": "LLMSecurityAnalyzer"}.',
    )

    @staticmethod
    def server_workspace(working_dir: str) -> LocalWorkspace:
        """A workspace naming a folder on the server, left for the server to resolve.

        A client must not resolve the path itself: `~` and relative paths mean the server's.
        """
        return LocalWorkspace.model_construct(working_dir=working_dir)


class ConversationInfo(BaseModel):
    """A conversation as clients see it (the agent's secrets are never included)."""

    model_config = _WIRE

    id: uuid.UUID
    agent: SerializeAsAny[AgentBase] = Field(
        description="The agent spec; its `llm.api_key` is always null."
    )
    workspace: LocalWorkspace
    execution_status: ConversationExecutionStatus
    title: str | None = None
    created_at: datetime
    updated_at: datetime
    metrics: dict[str, Metrics] = Field(
        default_factory=dict,
        description="Cost and tokens per LLM usage_id (the agent's, and a goal judge's under "
        "its own usage_id, 'goal-judge' by default).",
    )
    goal: GoalStatus | None = Field(
        default=None, description="The latest goal status, or null if no goal was started."
    )
    confirmation_policy: ConfirmationPolicy = Field(
        default_factory=NeverConfirm, description="Which tool calls wait for approval."
    )

    @field_validator("agent", mode="before")
    @classmethod
    def _agent_from_json(cls, value: Any) -> Any:
        return Agent.model_validate(value) if isinstance(value, dict) else value


class ConversationPage(BaseModel):
    """One page of a conversation search."""

    model_config = _WIRE

    items: list[ConversationInfo]
    next_page_id: str | None = Field(
        default=None, description="Pass as `page_id` to get the next page; null on the last."
    )


# -- events -----------------------------------------------------------------------------------


class EventPage(BaseModel):
    """One page of an event search; each event is (de)serialized by its own class.

    Reading a page skips (and logs) an event whose `kind` this SDK does not know, as the
    event stream does, so an older client keeps working against a newer server.
    """

    model_config = _WIRE

    items: list[SerializeAsAny[Event]] = Field(
        description="Events, each with a `kind` discriminator naming its class."
    )
    next_page_id: str | None = Field(
        default=None, description="Pass as `page_id` to get the next page; null on the last."
    )

    @field_validator("items", mode="before")
    @classmethod
    def _by_kind(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        events: list[Any] = []
        for item in value:
            if not isinstance(item, dict):
                events.append(item)
                continue
            try:
                events.append(Event.model_validate(item))
            except (UnknownEventKindError, ValidationError) as exc:
                logger.warning("Ignoring an item that is not a known event: %s", _first(exc))
        return events


class ForkConversationRequest(BaseModel):
    """Body of POST /{id}/fork (all optional)."""

    model_config = _REQUEST

    title: str | None = Field(default=None, max_length=500, description="The fork's title.")
    tags: dict[str, str] | None = Field(
        default=None, description="The fork's tags (keys: lowercase letters and digits)."
    )


class ExecuteCommandRequest(BaseModel):
    """Body of POST /api/bash/execute_bash_command."""

    model_config = _REQUEST

    command: str = Field(min_length=1, description="A bash command.")
    cwd: str | None = Field(
        default=None,
        description="Folder on the server to run it in (made if missing); default: the "
        "server's workspace folder (OH_WORKSPACE_PATH).",
    )
    timeout: float = Field(
        default=300.0, gt=0, le=86_400, description="Seconds before the command is killed."
    )

    @field_validator("command", "cwd")
    @classmethod
    def _no_nul(cls, value: str | None) -> str | None:
        if value is not None and "\x00" in value:
            raise ValueError("must not contain a NUL byte")
        return value


# -- human approval ---------------------------------------------------------------------------


class ConfirmationResponseRequest(BaseModel):
    """Body of POST /events/respond_to_confirmation: approve or reject the waiting calls."""

    model_config = _REQUEST

    accept: bool = Field(description="true runs the waiting tool calls; false rejects them.")
    reason: str = Field(
        default="User rejected the action.",
        max_length=10_000,
        description="Why they were rejected (the agent reads it); ignored when accepting.",
    )


class SetConfirmationPolicyRequest(BaseModel):
    """Body of POST /confirmation_policy."""

    model_config = _REQUEST

    policy: ConfirmationPolicy = Field(
        description='{"kind": "AlwaysConfirm"}, {"kind": "NeverConfirm"} or {"kind": '
        '"ConfirmRisky", "threshold": "HIGH", "confirm_unknown": true}.'
    )


class SetSecurityAnalyzerRequest(BaseModel):
    """Body of POST /security_analyzer."""

    model_config = _REQUEST

    security_analyzer: SecurityAnalyzer | None = Field(
        description='e.g. {"kind": "LLMSecurityAnalyzer"}; null removes the analyzer.'
    )


# -- goals ------------------------------------------------------------------------------------


class GoalRoundRequest(BaseModel):
    """Body of POST /goal/run: what a goal's remote run (a worker) sends for one round."""

    model_config = _REQUEST

    message: str | None = Field(
        default=None, description="The round's message to append first; null: run only."
    )


class ResumeGoalRequest(BaseModel):
    """Optional body of POST /goal/resume."""

    model_config = _REQUEST

    judge_llm: LLM | None = Field(
        default=None,
        description="The judge's LLM; default: the judge of the interrupted goal, or (after a "
        "restart) a copy of the agent's LLM.",
    )


def _first(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
