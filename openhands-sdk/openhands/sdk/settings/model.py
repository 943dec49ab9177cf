"""`OpenHandsAgentSettings`: an agent described as plain settings (JSON in, `Agent` out).

Settings are what a UI or a settings file stores: the LLM, which tools, MCP servers, the
context, and how the history is condensed, all serializable with `model_dump(mode="json")`
and read back with `model_validate`. `create_agent()` turns them into an `Agent`. Tools
are named, not imported (the registry resolves them), so the SDK builds agents with the
tool package's tools without depending on it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from openhands.sdk.agent.agent import Agent
from openhands.sdk.context.agent_context import AgentContext
from openhands.sdk.context.condenser import LLMSummarizingCondenser
from openhands.sdk.llm.llm import LLM
from openhands.sdk.mcp.config import MCPServer, coerce_mcp_config
from openhands.sdk.tool.spec import Tool
from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "AGENT_SETTINGS_SCHEMA_VERSION",
    "DEFAULT_TOOL_NAMES",
    "AgentSettingsBase",
    "CondenserSettings",
    "CondenserSettingsConfig",
    "LLMSummarizingCondenserSettings",
    "NoOpCondenserSettings",
    "OpenHandsAgentSettings",
    "create_agent_from_settings",
    "default_agent_settings",
    "validate_agent_settings",
]

AGENT_SETTINGS_SCHEMA_VERSION = 1
"""The version of the settings' JSON shape (stored with them, for later migrations)."""

DEFAULT_TOOL_NAMES: tuple[str, ...] = ("terminal", "file_editor", "task_tracker")
"""The tools an agent gets when its settings name none (the default preset's)."""

CONDENSER_USAGE_ID = "condenser"
"""The usage id the condenser's copy of the agent's LLM is counted under."""


class CondenserSettings(BaseModel):
    """Whether and when the agent's history is condensed."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    enabled: bool = Field(default=True, description="Condense long histories (False: never).")
    max_size: int = Field(
        default=240, ge=4, description="Events in the LLM's view before a condensation."
    )


class LLMSummarizingCondenserSettings(CondenserSettings):
    """Summarize the older middle of the history with the agent's LLM."""

    condenser_kind: Literal["llm_summarizing"] = "llm_summarizing"
    keep_first: int = Field(
        default=2, ge=0, description="Events at the start that are always kept verbatim."
    )


class NoOpCondenserSettings(CondenserSettings):
    """Never condense (the LLM always sees the whole history)."""

    condenser_kind: Literal["no_op"] = "no_op"
    enabled: bool = False


CondenserSettingsConfig = Annotated[
    LLMSummarizingCondenserSettings | NoOpCondenserSettings, Field(discriminator="condenser_kind")
]
"""Any condenser settings, read from JSON by `condenser_kind`."""


def _default_llm() -> LLM:
    return LLM(model="gpt-5.5")


class AgentSettingsBase(BaseModel):
    """What every kind of agent settings has: a schema version and `create_agent()`."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    schema_version: int = Field(default=AGENT_SETTINGS_SCHEMA_VERSION, ge=1)

    def create_agent(self) -> Agent:
        """The agent these settings describe."""
        raise NotImplementedError(f"{type(self).__name__} must implement create_agent()")


class OpenHandsAgentSettings(AgentSettingsBase):
    """Settings of the standard `Agent`: LLM, tools, MCP servers, context and condenser."""

    agent_kind: Literal["openhands"] = "openhands"
    llm: LLM = Field(default_factory=_default_llm, description="The agent's LLM.")
    tools: list[Tool] | None = Field(
        default=None,
        description="Tool specs (None: terminal, file_editor and task_tracker).",
    )
    enable_sub_agents: bool = Field(
        default=False, description="Also give the `task` tool (sub-agent delegation)."
    )
    tool_concurrency_limit: int = Field(
        default=1, ge=1, description="Tool calls of one reply that may run at once."
    )
    mcp_config: dict[str, MCPServer] = Field(
        default_factory=dict, description="MCP servers whose tools the agent gets."
    )
    agent_context: AgentContext | None = Field(
        default=None, description="Skills, prompt suffixes and memory."
    )
    condenser: CondenserSettingsConfig = Field(
        default_factory=LLMSummarizingCondenserSettings,
        description="How the history is condensed (enabled=False: not at all).",
    )

    @field_validator("mcp_config", mode="before")
    @classmethod
    def _read_mcp_config(cls, value: Any) -> Any:
        return coerce_mcp_config(value)

    def tool_specs(self) -> list[Tool]:
        """The tool specs the agent gets."""
        tools = (
            list(self.tools)
            if self.tools is not None
            else [Tool(name=name) for name in DEFAULT_TOOL_NAMES]
        )
        if self.enable_sub_agents and not any(t.name in ("task", "TaskTool") for t in tools):
            tools.append(Tool(name="task"))
        return tools

    def create_agent(self) -> Agent:
        """An `Agent` built from these settings (the condenser on a copy of the LLM counted
        under usage_id `condenser`)."""
        condenser = None
        settings = self.condenser
        if settings.enabled and isinstance(settings, LLMSummarizingCondenserSettings):
            condenser = LLMSummarizingCondenser(
                llm=self.llm.model_copy(update={"usage_id": CONDENSER_USAGE_ID}),
                max_size=settings.max_size,
                keep_first=settings.keep_first,
            )
        return Agent(
            llm=self.llm,
            tools=self.tool_specs(),
            mcp_config=self.mcp_config,
            agent_context=self.agent_context,
            condenser=condenser,
            tool_concurrency_limit=self.tool_concurrency_limit,
        )


def create_agent_from_settings(settings: OpenHandsAgentSettings) -> Agent:
    """`settings.create_agent()`."""
    return settings.create_agent()


def default_agent_settings() -> OpenHandsAgentSettings:
    """Settings with every default."""
    return OpenHandsAgentSettings()


def validate_agent_settings(data: Any) -> OpenHandsAgentSettings:
    """Settings from their JSON (or a settings object). Raises pydantic's ValidationError."""
    if isinstance(data, OpenHandsAgentSettings):
        return data
    return OpenHandsAgentSettings.model_validate(data)
