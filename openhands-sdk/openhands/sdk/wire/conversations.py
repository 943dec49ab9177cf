"""Wire models of conversations: create, read, list, fork, delete and send a message.

A conversation's events are `events.py`, its controls (approval, client tools, checkpoints,
the analyzer) `controls.py`, its goal's steps `goals.py`.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any, ClassVar

from openhands.sdk.agent.agent import Agent, AgentBase
from openhands.sdk.conversation.goal.models import GoalStatus
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.llm.llm_profile_store import PROFILE_NAME
from openhands.sdk.llm.message import ImageContent, Message, TextContent
from openhands.sdk.llm.metrics import Metrics
from openhands.sdk.plugin.types import PluginSource
from openhands.sdk.secret.secrets import SecretSource, SecretSpec
from openhands.sdk.security.approval_rules import AllowRule
from openhands.sdk.security.confirmation_policy import ConfirmationPolicy, NeverConfirm
from openhands.sdk.security.ensemble import SecurityAnalyzer
from openhands.sdk.tool.client_tool import ClientToolSpec
from openhands.sdk.wire.base import WIRE, Success, WireAnswer, WireRequest
from openhands.sdk.wire.controls import (
    ApprovalRulesRequest,
    ApprovalSuggestions,
    ClientToolResponseRequest,
    ConfirmationResponseRequest,
    SetConfirmationPolicyRequest,
    SetSecurityAnalyzerRequest,
    TakeCheckpointRequest,
)
from openhands.sdk.wire.events import EventPage
from openhands.sdk.wire.goals import GoalStepAnswer, GoalStepRequest, ResumeGoalRequest
from openhands.sdk.workspace.local import LocalWorkspace
from pydantic import (
    BaseModel,
    Field,
    SerializeAsAny,
    computed_field,
    field_validator,
    model_validator,
)

# The models of events, controls and goals lived here before the split: still importable here.
__all__ = [
    "PROFILE_USAGE_PREFIX",
    "ApprovalRulesRequest",
    "ApprovalSuggestions",
    "ClientToolResponseRequest",
    "ConfirmationResponseRequest",
    "ConversationInfo",
    "ConversationPage",
    "DeleteConversationResponse",
    "EventPage",
    "ForkConversationRequest",
    "GoalStepAnswer",
    "GoalStepRequest",
    "KeptFolder",
    "ResumeGoalRequest",
    "SendMessageRequest",
    "SetConfirmationPolicyRequest",
    "SetSecurityAnalyzerRequest",
    "StartConversationRequest",
    "TakeCheckpointRequest",
]

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

PROFILE_USAGE_PREFIX = "profile:"
"""The usage_id (and placeholder model) of an LLM taken from a stored profile by name."""


# -- conversations --------------------------------------------------------------------------


class SendMessageRequest(WireRequest):
    """A user message to append to a conversation, optionally starting a run."""

    role: str = Field(default="user", description="Only 'user' is accepted.")
    content: list[Annotated[TextContent | ImageContent, Field(discriminator="type")]] = Field(
        min_length=1, description="Message parts, e.g. [{'type': 'text', 'text': 'hi'}]."
    )
    run: bool = Field(default=False, description="Start a run after appending the message.")
    sender: str | None = Field(
        default=None,
        max_length=200,
        description="Who wrote it when not the person (e.g. 'goal' for the goal loop); null: "
        "the person.",
    )

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
    def of(
        cls, message: Message, *, run: bool = False, sender: str | None = None
    ) -> SendMessageRequest:
        """The request carrying a user `message` (ValueError if it is blank)."""
        return cls(content=list(message.content), run=run, sender=sender)

    def to_message(self) -> Message:
        """The SDK message this request carries."""
        return Message(role="user", content=list(self.content))


class StartConversationRequest(WireRequest):
    """Create a conversation (or fetch it, if `conversation_id` already exists).

    The reference server's other fields are read too: those only about its own services
    (`tool_module_qualnames`, `observability_*`, `user_id`, `autotitle`, `stuck_detection`)
    are ignored; those asking for something this server does not do yet are refused with a
    422 when set (`UNSUPPORTED`).
    """

    UNSUPPORTED: ClassVar[Mapping[str, str]] = {
        "agent.critic": "critics are not built here; leave critic out",
        "agent_settings": "send a full `agent` spec instead",
        "agent_definitions": "register sub-agents on the server (agent files) instead",
        "agent_launch_additions": "send a full `agent` spec instead",
        "container": "conversations run on this server, not in containers",
        "conversation_runtime": "conversations run on this server ('local' only)",
        "prompt": "use `initial_message` instead",
        "secrets_encrypted": "send secrets in clear over a trusted connection",
        "tags": "set tags when forking (POST /{id}/fork), or leave them out",
        "title_llm_profile": "leave it out: titles come from the first message",
        "worktree": "point `workspace.working_dir` at a worktree you made",
        "worktree_options": "point `workspace.working_dir` at a worktree you made",
    }

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
    parent_conversation_id: uuid.UUID | None = Field(
        default=None,
        description="An existing conversation that owns this one (its child): it must share "
        "this conversation's working directory (the default when `workspace` is left out). "
        "Unknown, itself or another folder: 422. Children are listed in the parent's "
        "`sub_conversation_ids`; POST /{id}/children starts one with the parent's settings.",
    )
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
    client_tools: list[ClientToolSpec] = Field(
        default_factory=list,
        description="Tools the client runs itself: {name, description, parameters (a JSON "
        "Schema object), annotations, wait_for_result}. Their calls reach the client as "
        "ActionEvents; one that waits is answered with POST /client_tools/respond.",
    )
    plugins: list[PluginSource] = Field(
        default_factory=list,
        description="Plugins merged into the agent before it starts (skills, MCP servers, "
        "hooks): {source: a folder on the server, a git URL or github:owner/repo, ref, "
        "repo_path}.",
    )
    secrets: dict[str, SecretSpec] = Field(
        default_factory=dict,
        description="Secrets for the agent's commands by environment variable name: a value, "
        '{"kind": "StaticSecret", "value": ...} or {"kind": "LookupSecret", "url": ...}. A '
        "command naming $NAME gets it; its output shows <secret-hidden> instead; never in "
        "events. A LookupSecret of the server's own /api/settings/secrets/NAME reads that "
        "stored secret.",
    )
    llm_profile: str | None = Field(
        default=None,
        pattern=PROFILE_NAME.pattern,
        description="A stored LLM profile (/api/profiles) the agent uses instead of agent.llm "
        "(which may then be left out); its key stays on the server.",
    )
    agent_profile_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="A stored agent profile (/api/agent-profiles), by id or name: the agent is "
        "built from it (`agent` may then be left out); its secret_refs filter `secrets`.",
    )

    @model_validator(mode="before")
    @classmethod
    def _agent_llm_from_profile(cls, data: Any) -> Any:
        # With `llm_profile` the agent's LLM comes from the server: a placeholder stands in
        # until the server puts the profile's LLM there.
        if not isinstance(data, dict):
            return data
        named = data.get("llm_profile") or data.get("agent_profile_id")
        if not isinstance(named, str):
            return data
        agent = data.get("agent")
        if agent is None:
            agent = {"kind": "Agent"}
        if isinstance(agent, dict) and agent.get("llm") is None:
            placeholder = {"model": f"{PROFILE_USAGE_PREFIX}{named}"}
            data = {**data, "agent": {**agent, "llm": placeholder}}
        return data

    @field_validator("secrets")
    @classmethod
    def _secret_names(cls, secrets: dict[str, SecretSource]) -> dict[str, SecretSource]:
        for name in secrets:
            if not _ENV_NAME.match(name):
                raise ValueError(
                    f"secret name {name!r} is not an environment variable name (letters, "
                    "digits and _, not starting with a digit)"
                )
        return secrets

    @field_validator("plugins", mode="before")
    @classmethod
    def _no_plugins(cls, value: Any) -> Any:
        # The reference's clients send `"plugins": null` when there are none.
        return [] if value is None else value

    @staticmethod
    def server_workspace(working_dir: str) -> LocalWorkspace:
        """A workspace naming a folder on the server, left for the server to resolve.

        A client must not resolve the path itself: `~` and relative paths mean the server's.
        """
        return LocalWorkspace.model_construct(working_dir=working_dir)


class ConversationInfo(WireAnswer):
    """A conversation as clients see it (the agent's secrets are never included).

    It carries the reference server's fields that its clients read (`stats`,
    `max_iterations`, `security_analyzer`, `hook_config`, ...) plus this server's own
    (`goal`, `metrics` per usage id); reading a reference server's answer drops the rest.
    """

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
    security_analyzer: SecurityAnalyzer | None = Field(
        default=None, description="What rates each tool call's risk (null: none)."
    )
    max_iterations: int = Field(default=500, description="Agent steps allowed per run.")
    stuck_detection: bool = Field(default=True, description="Always on here.")
    hook_config: HookConfig | None = Field(default=None, description="The command hooks.")
    persistence_dir: str | None = Field(
        default=None, description="The conversation's folder on the server."
    )
    tags: dict[str, str] = Field(default_factory=dict, description="The conversation's tags.")
    activated_knowledge_skills: list[str] = Field(default_factory=list)
    invoked_skills: list[str] = Field(default_factory=list)
    client_tools: list[dict[str, Any]] = Field(default_factory=list)
    tool_module_qualnames: dict[str, str] = Field(default_factory=dict)
    approval_rules: list[AllowRule] = Field(
        default_factory=list,
        description="Standing approvals: calls they match run without asking (unless rated "
        "HIGH risk).",
    )
    parent_conversation_id: uuid.UUID | None = Field(
        default=None,
        description="The conversation that started this one (POST /{id}/children, or "
        "`parent_conversation_id` at creation); null for a top-level one. It stays when the "
        "parent is deleted.",
    )
    sub_conversation_ids: list[uuid.UUID] = Field(
        default_factory=list,
        description="The conversations naming this one as their parent, oldest first.",
    )

    @field_validator("agent", mode="before")
    @classmethod
    def _agent_from_json(cls, value: Any) -> Any:
        return Agent.model_validate(value) if isinstance(value, dict) else value

    @model_validator(mode="before")
    @classmethod
    def _metrics_from_stats(cls, value: Any) -> Any:
        # The reference server sends `metrics` as one combined snapshot (or null) and the
        # per-usage metrics in `stats.usage_to_metrics`; this server sends both per usage.
        if not isinstance(value, dict):
            return value
        value = dict(value)
        stats = value.pop("stats", None)
        metrics = value.get("metrics")
        if not isinstance(metrics, dict) or "accumulated_cost" in metrics:
            usage = stats.get("usage_to_metrics") if isinstance(stats, dict) else None
            value["metrics"] = usage if isinstance(usage, dict) else {}
        return value

    @computed_field  # type: ignore[prop-decorator]
    @property
    def stats(self) -> dict[str, Any]:
        """The reference's name for the usage: `{"usage_to_metrics": metrics}`."""
        return {"usage_to_metrics": {k: m.model_dump(mode="json") for k, m in self.metrics.items()}}


class ConversationPage(BaseModel):
    """One page of a conversation search."""

    model_config = WIRE

    items: list[ConversationInfo]
    next_page_id: str | None = Field(
        default=None, description="Pass as `page_id` to get the next page; null on the last."
    )


class ForkConversationRequest(WireRequest):
    """Body of POST /{id}/fork (all optional)."""

    id: uuid.UUID | None = Field(default=None, description="The fork's id; default: a new one.")
    reset_metrics: bool = Field(
        default=True, description="Start the fork's usage at zero (false: copy the source's)."
    )
    from_event_id: str | None = Field(
        default=None,
        description="Copy only the branch up to this event and continue from there; "
        "null: the whole history.",
    )
    title: str | None = Field(default=None, max_length=500, description="The fork's title.")
    tags: dict[str, str] | None = Field(
        default=None, description="The fork's tags (keys: lowercase letters and digits)."
    )


class KeptFolder(BaseModel):
    """A folder a delete left in place, and why."""

    model_config = WIRE

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
