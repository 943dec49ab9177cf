"""`AgentBase`: an agent's configuration (LLM, tools, prompts, context) and what every agent
does once per conversation: resolve its tools and build its system prompt."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from openhands.sdk.agent.prompts import (
    DEFAULT_SECURITY_POLICY_FILENAME,
    DEFAULT_SYSTEM_PROMPT,
    DEFAULT_SYSTEM_PROMPT_FILENAME,
)
from openhands.sdk.context.agent_context import AgentContext
from openhands.sdk.context.condenser import Condenser
from openhands.sdk.errors import InvalidStateError
from openhands.sdk.event.base import Event
from openhands.sdk.event.message import MessageEvent, SystemPromptEvent
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.message import TextContent
from openhands.sdk.mcp.config import MCPServer, coerce_mcp_config
from openhands.sdk.tool.builtins import BUILT_IN_TOOL_CLASSES, BUILTIN_TOOLS
from openhands.sdk.tool.registry import resolve_tool
from openhands.sdk.tool.tool import Tool, ToolContext, ToolDefinition
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

if TYPE_CHECKING:
    from openhands.sdk.agent.step_conversation import StepConversation
    from openhands.sdk.context.conversation_context import ConversationContext

OnEvent = Callable[[Event], None]
OnToken = Callable[[Any], None]
"""Gets each streamed chunk of an LLM reply (passed to the LLM's `on_token`)."""


class EventOrderError(InvalidStateError, AssertionError):
    """A conversation's events break an invariant (a user message before the system
    prompt); the message says which. An AssertionError too, as the reference raises."""


BUILTIN_TOOL_NAMES: tuple[str, ...] = tuple(tool.__name__ for tool in BUILTIN_TOOLS)
"""The built-ins an agent gets by default ("FinishTool", "ThinkTool")."""


class AgentBase(BaseModel):
    """What every agent has: an LLM, tool specs, a system prompt and an optional context."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    kind: Literal["Agent"] = "Agent"
    llm: LLM
    tools: list[Tool] = Field(default_factory=list)
    system_prompt: str | None = Field(
        default=None,
        description="The system prompt, verbatim (None: the one `system_prompt_filename` "
        "names). Cannot be combined with a custom `system_prompt_filename`.",
    )
    system_prompt_filename: str = Field(
        default=DEFAULT_SYSTEM_PROMPT_FILENAME,
        description="The system prompt template: 'system_prompt.j2' is the built-in prompt; "
        "another name is a Jinja2 file, absolute or in the agent class's prompts folder.",
    )
    system_prompt_kwargs: dict[str, object] = Field(
        default_factory=dict, description="Values a custom system prompt template uses."
    )
    security_policy_filename: str = Field(
        default=DEFAULT_SECURITY_POLICY_FILENAME,
        description="A security policy for the system prompt: a file (absolute, or in the agent "
        "class's prompts folder) whose text is added verbatim after the prompt. "
        "'security_policy.j2' (the default) and '' add nothing: the built-in prompt already "
        "asks for care, and a `security_risk` argument explains the risk scale to the LLM.",
    )
    condenser: Condenser | None = Field(
        default=None,
        description="Keeps the LLM's view of a long conversation short, e.g. "
        "LLMSummarizingCondenser(llm=..., max_size=120, keep_first=2); None sends it all.",
    )
    include_default_tools: list[str] = Field(
        default_factory=lambda: list(BUILTIN_TOOL_NAMES),
        description="Built-in tools to add, by class name (['FinishTool', 'ThinkTool'] by "
        "default; [] for none; 'SwitchLLMTool' on request). True and False mean the default "
        "ones and none.",
    )
    agent_context: AgentContext | None = Field(
        default=None, description="Skills, prompt suffixes and memory for the agent's prompts."
    )
    mcp_config: dict[str, MCPServer] = Field(
        default_factory=dict,
        description='MCP servers whose tools the agent gets: {"mcpServers": {name: {...}}} '
        "or {name: {...}}; started when a conversation starts (see docs/mcp.md).",
    )
    filter_tools_regex: str | None = Field(
        default=None,
        description="Keep only tools whose name matches this regex (re.match), among the "
        "`tools` specs and MCP tools; the built-in finish/think are always kept (None: all).",
    )
    tool_concurrency_limit: int = Field(
        default=1,
        ge=1,
        description="How many tool calls of one LLM reply may run at the same time (1: one "
        "after the other). Calls of one tool take turns unless the tool declares the "
        "resources each call uses.",
    )

    _tools: dict[str, ToolDefinition] | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _prompt_options(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if data.get("security_policy_filename", "") is None:
            data = {**data, "security_policy_filename": ""}
        custom_file = data.get("system_prompt_filename", DEFAULT_SYSTEM_PROMPT_FILENAME)
        if data.get("system_prompt") is not None and custom_file != DEFAULT_SYSTEM_PROMPT_FILENAME:
            raise ValueError(
                "Set either system_prompt (the text) or a custom system_prompt_filename (a "
                "template), not both."
            )
        return data

    @field_validator("mcp_config", mode="before")
    @classmethod
    def _read_mcp_config(cls, value: Any) -> Any:
        return coerce_mcp_config(value)

    @field_validator("filter_tools_regex")
    @classmethod
    def _valid_regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from exc
        return value

    @field_validator("include_default_tools", mode="before")
    @classmethod
    def _default_tools(cls, value: Any) -> Any:
        # Agents saved before this was a list stored a bool.
        if value is True:
            return list(BUILTIN_TOOL_NAMES)
        if value is False:
            return []
        if isinstance(value, list):
            unknown = [name for name in value if name not in BUILT_IN_TOOL_CLASSES]
            if unknown:
                raise ValueError(
                    f"Unknown built-in tool(s) {unknown}; include_default_tools takes class "
                    f"names among {list(BUILT_IN_TOOL_CLASSES)}."
                )
        return value

    # -- prompts -------------------------------------------------------------------------------

    @property
    def prompt_dir(self) -> str:
        """The folder relative template names are read from: `prompts/` beside the module
        that defines this agent's class."""
        module_file = getattr(sys.modules.get(type(self).__module__), "__file__", None) or "."
        return str(Path(module_file).parent / "prompts")

    @property
    def static_system_message(self) -> str:
        """The system prompt without the per-conversation part (the same for every
        conversation of this agent), with the security policy file's text after it. Raises
        PromptTemplateError for a missing template or policy file."""
        prompt = self._base_system_message()
        policy = self._security_policy_text()
        return f"{prompt}\n\n{policy}" if policy else prompt

    def _security_policy_text(self) -> str:
        filename = self.security_policy_filename
        if not filename:
            return ""
        path = Path(filename) if Path(filename).is_absolute() else Path(self.prompt_dir) / filename
        if filename == DEFAULT_SECURITY_POLICY_FILENAME and not path.is_file():
            return ""
        try:
            return path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            from openhands.sdk.agent.prompts.templates import PromptTemplateError

            raise PromptTemplateError(
                f"security_policy_filename {filename!r}: cannot read {path} ({exc}); give an "
                "existing file, or '' for none."
            ) from exc

    def _base_system_message(self) -> str:
        if self.system_prompt is not None:
            return self.system_prompt
        filename = self.system_prompt_filename
        local = Path(self.prompt_dir) / filename
        if filename == DEFAULT_SYSTEM_PROMPT_FILENAME and not local.is_file():
            return DEFAULT_SYSTEM_PROMPT
        from openhands.sdk.agent.prompts.templates import render_template

        return render_template(self.prompt_dir, filename, **self._template_kwargs())

    def _template_kwargs(self) -> dict[str, object]:
        kwargs: dict[str, object] = {
            "model_name": self.llm.model,
            "memory_enabled": bool(self.agent_context and self.agent_context.load_memory),
            "security_policy_filename": self.security_policy_filename,
        }
        kwargs.update(self.system_prompt_kwargs)
        return kwargs

    @property
    def dynamic_context(self) -> str | None:
        """The per-conversation part of the system prompt this agent's context gives before
        a workspace is known (no project skills, no memory), or None."""
        if self.agent_context is None:
            return None
        return self.agent_context.get_system_message_suffix(self.llm.model)

    def system_prompt_event(
        self, tools: list[dict[str, Any]], context: ConversationContext | None = None
    ) -> SystemPromptEvent:
        """The first event of a conversation: the static prompt, the tool schemas, and the
        dynamic context resolved for that conversation (`context`)."""
        dynamic = (
            context.system_message_suffix(self.llm.model)
            if context is not None
            else self.dynamic_context
        )
        return SystemPromptEvent(
            system_prompt=TextContent(text=self.static_system_message),
            tools=tools,
            dynamic_context=TextContent(text=dynamic) if dynamic else None,
        )

    def init_state(self, state: Any, on_event: OnEvent) -> None:
        """Start `state` (a `ConversationState`) for this agent: build its tools for the
        state's workspace and emit the system prompt through `on_event`, unless the events
        already hold one. A `LocalConversation` does this itself; this is for code that builds
        a state by hand. Raises `EventOrderError` when a user message comes before any system
        prompt (such a history cannot be given a system prompt afterwards).
        """
        for event in state.events:
            if isinstance(event, SystemPromptEvent):
                return
            if isinstance(event, MessageEvent) and event.source == "user":
                raise EventOrderError(
                    "A user message exists before SystemPromptEvent in this conversation: its "
                    "system prompt cannot be added afterwards; start a new conversation."
                )
        from openhands.sdk.context.conversation_context import ConversationContext
        from openhands.sdk.security.ensemble import uses_llm_risk

        working_dir = state.workspace.working_dir
        folder = getattr(state, "folder", None)
        tools = self.init_tools(
            ToolContext(
                working_dir=working_dir,
                persistence_dir=str(folder) if folder else None,
                conversation_id=state.id.hex,
            )
        )
        ask_risk = uses_llm_risk(getattr(state, "security_analyzer", None))
        records = [
            {**tool.to_openai_tool(add_security_risk_prediction=ask_risk), **tool.identity()}
            for tool in tools.values()
        ]
        registry = getattr(state, "secret_registry", None)
        context = ConversationContext(
            self.agent_context,
            working_dir,
            registry.get_secret_infos() if registry is not None else None,
        )
        on_event(self.system_prompt_event(records, context))

    # -- tools ---------------------------------------------------------------------------------

    def init_tools(self, context: ToolContext) -> dict[str, ToolDefinition]:
        """Resolve the tool specs for one conversation, keyed by the name the LLM calls.

        Starts the `mcp_config` servers (a server that fails is logged and left out) and
        applies `filter_tools_regex` to spec and MCP tools. The result is also kept as
        `tools_map` (the tools of the conversation this agent was last set up for).
        """
        resolved: dict[str, ToolDefinition] = {}
        for name in self.include_default_tools:
            definition = BUILT_IN_TOOL_CLASSES[name]()
            resolved[definition.name] = definition
        pattern = re.compile(self.filter_tools_regex) if self.filter_tools_regex else None
        for spec in self.tools:
            for definition in resolve_tool(spec, context):
                if pattern is None or pattern.match(definition.name):
                    resolved[definition.name] = definition
                else:
                    definition.close()
        if self.mcp_config:
            from openhands.sdk.mcp.utils import create_mcp_tools  # loads `mcp`: only if used

            keep = pattern.match if pattern is not None else None
            for definition in create_mcp_tools(
                self.mcp_config, working_dir=context.working_dir, keep=keep, reserved=resolved
            ):
                resolved[definition.name] = definition
        self._tools = resolved
        return resolved

    @property
    def tools_map(self) -> dict[str, ToolDefinition]:
        """The tools initialised for this agent's conversation, by name.

        Raises RuntimeError before the agent was given to a conversation.
        """
        if self._tools is None:
            raise InvalidStateError(
                "This agent's tools are not initialised yet: create a Conversation with it "
                "first (tools are built for a workspace)."
            )
        return dict(self._tools)

    # -- stepping ------------------------------------------------------------------------------

    def step(
        self, conversation: StepConversation, on_event: OnEvent, on_token: OnToken | None = None
    ) -> bool:
        """Take one step; return True when the agent wants to end the run.

        `on_token`, when given, gets each streamed chunk of the LLM's reply.
        """
        raise NotImplementedError
