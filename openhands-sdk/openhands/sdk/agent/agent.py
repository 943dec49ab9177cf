"""`Agent`: an LLM plus tools. One `step` asks the LLM once and runs the tool calls it makes."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from openhands.sdk.agent.prompts import DEFAULT_SYSTEM_PROMPT
from openhands.sdk.context.agent_context import AgentContext
from openhands.sdk.event.action import (
    ActionEvent,
    AgentErrorEvent,
    ObservationEvent,
    UserRejectObservation,
)
from openhands.sdk.event.base import Event
from openhands.sdk.event.message import MessageEvent
from openhands.sdk.hooks.config import HookEventType
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.message import MessageToolCall, TextContent
from openhands.sdk.mcp.config import MCPServer, coerce_mcp_config
from openhands.sdk.tool.builtins import BUILTIN_TOOLS, FinishTool
from openhands.sdk.tool.registry import resolve_tool
from openhands.sdk.tool.tool import Observation, Tool, ToolContext, ToolDefinition
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

if TYPE_CHECKING:
    from openhands.sdk.conversation.local import LocalConversation

OnEvent = Callable[[Event], None]
OnToken = Callable[[Any], None]
"""Gets each streamed chunk of an LLM reply (passed to the LLM's `on_token`)."""


class AgentBase(BaseModel):
    """What every agent has: an LLM, tool specs and a system prompt."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    kind: Literal["Agent"] = "Agent"
    llm: LLM
    tools: list[Tool] = Field(default_factory=list)
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    include_default_tools: bool = Field(
        default=True, description="Add the built-in `finish` and `think` tools."
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
        default=1, ge=1, description="Tool calls of one LLM reply run at most this many at once."
    )

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

    def init_tools(self, context: ToolContext) -> dict[str, ToolDefinition]:
        """Resolve the tool specs for one conversation, keyed by the name the LLM calls.

        Starts the `mcp_config` servers (a server that fails is logged and left out) and
        applies `filter_tools_regex` to spec and MCP tools.
        """
        resolved: dict[str, ToolDefinition] = {}
        defaults = [cls() for cls in BUILTIN_TOOLS] if self.include_default_tools else []
        for definition in defaults:
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
        return resolved

    def step(
        self, conversation: LocalConversation, on_event: OnEvent, on_token: OnToken | None = None
    ) -> bool:
        """Take one step; return True when the agent wants to end the run.

        `on_token`, when given, gets each streamed chunk of the LLM's reply.
        """
        raise NotImplementedError


class Agent(AgentBase):
    """The standard agent: ask the LLM, run its tool calls, finish on `finish` or plain text."""

    def step(
        self, conversation: LocalConversation, on_event: OnEvent, on_token: OnToken | None = None
    ) -> bool:
        messages = conversation.state.llm_messages()
        # `on_token` only when there are token callbacks, so LLMs without it keep working.
        streaming: dict[str, Any] = {} if on_token is None else {"on_token": on_token}
        response = self.llm.completion(messages, tools=conversation.tool_schemas, **streaming)
        reply = response.message
        if not reply.tool_calls:
            on_event(MessageEvent(source="agent", llm_message=reply))
            return True

        thought = [part for part in reply.content if isinstance(part, TextContent)]
        # Ties this reply's calls together so the history can merge them into one message.
        response_id = response.id or uuid.uuid4().hex
        planned: list[tuple[ActionEvent, Any, str | None]] = []
        for index, call in enumerate(reply.tool_calls):
            action, error = self._validate(call, conversation.tools)
            event = ActionEvent(
                thought=thought if index == 0 else [],
                tool_name=call.name,
                tool_call_id=call.id,
                tool_call=call,
                action=action.model_dump(mode="json") if action is not None else None,
                llm_response_id=response_id,
            )
            on_event(event)
            planned.append((event, action, error))

        finished = False
        for event, action, error in planned:
            if error is not None:
                on_event(
                    AgentErrorEvent(
                        tool_name=event.tool_name, tool_call_id=event.tool_call_id, error=error
                    )
                )
                continue
            finished = self._execute(conversation, event, action, on_event) or finished
        return finished

    @staticmethod
    def _validate(
        call: MessageToolCall, tools: dict[str, ToolDefinition]
    ) -> tuple[Any, str | None]:
        tool = tools.get(call.name)
        if tool is None:
            return None, f"Unknown tool {call.name!r}. Available tools: {', '.join(sorted(tools))}."
        try:
            arguments = json.loads(call.arguments or "{}")
            if not isinstance(arguments, dict):
                raise ValueError("arguments must be a JSON object")
            return tool.action_type.model_validate(arguments), None
        except (ValueError, ValidationError) as exc:
            return None, f"Invalid arguments for tool {call.name!r}: {exc}"

    def _execute(
        self, conversation: LocalConversation, event: ActionEvent, action: Any, on_event: OnEvent
    ) -> bool:
        tool = conversation.tools[event.tool_name]
        hooks = conversation.hook_runner
        tool_input = event.action or {}
        pre = hooks.run(
            HookEventType.PRE_TOOL_USE,
            {"tool_name": event.tool_name, "tool_input": tool_input},
            tool_name=event.tool_name,
        )
        if pre.blocked:
            on_event(
                UserRejectObservation(
                    source="hook",
                    tool_name=event.tool_name,
                    tool_call_id=event.tool_call_id,
                    action_id=event.id,
                    rejection_reason=pre.feedback,
                )
            )
            return False
        try:
            observation = tool(action, conversation)
            if not isinstance(observation, Observation):
                raise TypeError(f"it returned {type(observation).__name__}, not an Observation")
        except Exception as exc:  # a broken tool must not kill the run; the agent sees why
            on_event(
                AgentErrorEvent(
                    tool_name=event.tool_name,
                    tool_call_id=event.tool_call_id,
                    error=f"Tool {event.tool_name!r} failed: {type(exc).__name__}: {exc}",
                )
            )
            return False
        on_event(
            ObservationEvent(
                tool_name=event.tool_name,
                tool_call_id=event.tool_call_id,
                action_id=event.id,
                content=observation.to_llm_content(),
                observation=observation.model_dump(mode="json"),
                is_error=observation.is_error,
            )
        )
        hooks.run(
            HookEventType.POST_TOOL_USE,
            {
                "tool_name": event.tool_name,
                "tool_input": tool_input,
                "tool_response": observation.content,
            },
            tool_name=event.tool_name,
        )
        return isinstance(tool, FinishTool)
