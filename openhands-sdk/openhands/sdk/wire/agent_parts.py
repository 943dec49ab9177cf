"""Wire models of what an agent may be built from: `/api/hooks`, `/api/tools/catalog` and
`/api/sub-agents` (the reference server's shapes)."""

from __future__ import annotations

from typing import Any

from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.subagent.schema import AgentDefinition, AgentDefinitionLevel
from openhands.sdk.wire.base import WireAnswer, WireRequest
from pydantic import Field


class HooksRequest(WireRequest):
    """Body of POST /api/hooks."""

    project_dir: str | None = Field(
        default=None,
        description="The project folder (absolute) whose .openhands/hooks.json to read.",
    )


class HooksResponse(WireAnswer):
    """The project's hooks, or null when it has none."""

    hook_config: HookConfig | None = None


class ToolCatalogEntry(WireAnswer):
    """A tool offered to clients that configure an agent."""

    name: str
    user_selectable: bool = True
    usable: bool = True
    description: str = ""
    in_default_set: bool = Field(
        default=False, description="Whether an agent without a tools list gets it."
    )


class ToolCatalogResponse(WireAnswer):
    """The answer of GET /api/tools/catalog."""

    tools: list[ToolCatalogEntry]


class SubAgentsRequest(WireRequest):
    """Body of POST /api/sub-agents: where to look for sub-agents."""

    load_user: bool = Field(default=True, description="~/.agents/agents, ~/.openhands/agents.")
    load_project: bool = Field(default=True, description="The project's agents (project_dir).")
    load_builtin: bool = Field(default=True, description="The built-in agents.")
    project_dir: str | None = Field(
        default=None, description="The project folder (absolute) whose agents to list."
    )


class SubAgentInfo(WireAnswer):
    """A sub-agent definition, whole (its instructions in `system_prompt`)."""

    name: str
    description: str = ""
    model: str = "inherit"
    color: str | None = None
    tools: list[str] = Field(default_factory=list)
    skills: list[str] = Field(default_factory=list)
    system_prompt: str = ""
    when_to_use_examples: list[str] = Field(default_factory=list)
    permission_mode: str | None = None
    max_iteration_per_run: int | None = None
    max_budget_per_run: float | None = None
    mcp_config: dict[str, Any] | None = None
    mcp_servers: dict[str, Any] | None = Field(
        default=None, description="The reference's older name of mcp_config."
    )
    profile_store_dir: str | None = None
    hooks: HookConfig | None = None
    condenser: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    level: AgentDefinitionLevel | None = None
    source: str | None = None
    is_builtin: bool = False

    @classmethod
    def from_definition(cls, definition: AgentDefinition) -> SubAgentInfo:
        """The answer for one definition."""
        return cls(
            name=definition.name,
            description=definition.description,
            model=definition.model,
            color=definition.color,
            tools=definition.tools,
            skills=definition.skills,
            system_prompt=definition.system_prompt,
            when_to_use_examples=definition.when_to_use_examples,
            permission_mode=definition.permission_mode,
            max_iteration_per_run=definition.max_iteration_per_run,
            max_budget_per_run=definition.max_budget_per_run,
            mcp_config=definition.mcp_config,
            mcp_servers=definition.mcp_config,
            profile_store_dir=definition.profile_store_dir,
            hooks=definition.hooks,
            metadata=definition.metadata,
            level=definition.level,
            source=definition.source,
            is_builtin=definition.level == "builtin",
        )


class SubAgentsResponse(WireAnswer):
    """The answer of POST /api/sub-agents."""

    agents: list[SubAgentInfo]
