"""Wire models of agent profiles (/api/agent-profiles): named, secret-free specs a new
conversation's agent is built from (`StartConversationRequest.agent_profile_id`). The
reference server's shapes and names.

A profile names its LLM by a stored LLM profile (`llm_profile_ref`) and its MCP servers by
the keys of the stored settings' `mcp_config` (`mcp_server_refs`), so it holds no key. The
server manages `id` (stable across renames: the active pointer and conversations keep it)
and `revision` (bumped by every save).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from openhands.sdk.llm.llm_profile_store import PROFILE_NAME
from openhands.sdk.settings.model import CondenserSettingsConfig, LLMSummarizingCondenserSettings
from openhands.sdk.tool.spec import Tool
from openhands.sdk.wire.base import WIRE, WireAnswer, WireRequest
from pydantic import BaseModel, Field

SEED_PROFILE_NAME = "default"
"""The profile made from the stored settings when there is none (and the LLM profile name it
falls back to)."""


class AgentProfile(WireRequest):
    """An agent profile (`agent_kind: "openhands"`, the standard agent)."""

    UNSUPPORTED: ClassVar[Mapping[str, str]] = {
        "persona": "this agent's prompt has no persona slot; use system_message_suffix",
        "public_skills": "skills are chosen by disabled_skills here",
        "enable_classify_and_switch_llm_tool": "the model-routing tool is not built here",
        "meta_profile_ref": "the model-routing tool is not built here",
        "acp_server": "ACP agents are not run here (agent_kind 'openhands' only)",
    }

    schema_version: int = Field(default=1, ge=1)
    agent_kind: Literal["openhands"] = Field(
        default="openhands", description="'openhands' (ACP agents are not run here)."
    )
    id: uuid.UUID = Field(
        default_factory=uuid.uuid4, description="Stable across renames; set by the server."
    )
    name: str = Field(pattern=PROFILE_NAME.pattern, description="The profile's name.")
    revision: int = Field(default=0, ge=0, description="Bumped by the server on each save.")
    llm_profile_ref: str = Field(
        min_length=1, max_length=64, description="The stored LLM profile (/api/profiles) it uses."
    )
    agent: str = Field(default="CodeActAgent", description="Accepted; the agent is `Agent`.")
    tools: list[Tool] | None = Field(
        default=None, description="null: the standard tools; []: none; a list: exactly these."
    )
    system_message_suffix: str | None = Field(
        default=None, max_length=65536, description="Appended to the system prompt."
    )
    disabled_skills: list[str] = Field(
        default_factory=list, description="Skills left out of the agent's prompt, by name."
    )
    condenser: CondenserSettingsConfig = Field(
        default_factory=LLMSummarizingCondenserSettings,
        description="How the history is condensed (enabled=false: not at all).",
    )
    verification: dict[str, Any] = Field(
        default_factory=dict, description="Accepted and kept; critics are not run here."
    )
    tool_concurrency_limit: int = Field(default=1, ge=1, description="Tool calls run at once.")
    mcp_server_refs: list[str] | None = Field(
        default=None,
        description="Which stored MCP servers (keys of /api/settings mcp_config) it gets: "
        "null all, [] none.",
    )
    secret_refs: list[str] | None = Field(
        default=None,
        description="Which of the conversation's secrets it gets, by name: null all, [] none.",
    )


class AgentProfileInfo(WireAnswer):
    """One entry of the profile list."""

    id: str | None = None
    name: str
    agent_kind: str = "openhands"
    revision: int | None = None
    llm_profile_ref: str | None = None
    mcp_server_refs: list[str] | None = None


class AgentProfileListResponse(WireAnswer):
    """GET /api/agent-profiles: every profile and the active one's id."""

    profiles: list[AgentProfileInfo]
    active_agent_profile_id: str | None = None


class AgentProfileDetailResponse(WireAnswer):
    """GET /api/agent-profiles/{name}."""

    name: str
    profile: dict[str, Any]


class AgentProfileMutationResponse(WireAnswer):
    """What a save, delete or rename answers."""

    name: str
    message: str


class ActivateAgentProfileResponse(WireAnswer):
    """POST /api/agent-profiles/{id}/activate: only the pointer moves."""

    id: str
    message: str
    agent_settings_applied: bool = Field(
        default=False, description="Always false: activation does not change /api/settings."
    )


class RenameAgentProfileRequest(WireRequest):
    """Body of POST /api/agent-profiles/{name}/rename."""

    new_name: str = Field(pattern=PROFILE_NAME.pattern)


class MaterializeAgentProfileRequest(WireRequest):
    """Body of POST /api/agent-profiles/{name}/materialize: a draft to check instead of the
    stored profile (its name is the path's)."""

    profile: dict[str, Any] | None = None


class AgentProfileDiagnostics(BaseModel):
    """What launching the profile would do, without launching it (materialize)."""

    model_config = WIRE

    agent_kind: str = "openhands"
    valid: bool = False
    errors: list[str] = Field(default_factory=list)
    unusable_tools: list[str] = Field(default_factory=list)
    llm_profile_ref: str | None = None
    llm_profile_resolved: bool = False
    llm_api_key_set: bool = False
    mcp_server_refs: list[str] | None = None
    resolved_mcp_config_keys: list[str] = Field(default_factory=list)
    dangling_mcp_server_refs: list[str] = Field(default_factory=list)
    disabled_skills: list[str] = Field(default_factory=list)
    public_skills: list[str] | None = None
    resolved_skills: list[str] = Field(default_factory=list)
    secret_refs: list[str] | None = None
    resolved_settings: dict[str, Any] | None = Field(
        default=None, description="The agent settings it resolves to (no key), when valid."
    )
