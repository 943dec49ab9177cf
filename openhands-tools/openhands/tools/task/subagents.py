"""How the delegating tools find sub-agents: the SDK registry, then the built-in agents.

The SDK's registry (`openhands.sdk.subagent`) is the source of truth: an agent a script
registered is used as registered. A name that is not registered but names a built-in agent
(general-purpose, bash-runner, code-explorer) registers the built-ins (if absent) on first
use, so `subagent_type="general-purpose"` works with no set-up, yet a script may still
register its own agent under a built-in name before that.
"""

from __future__ import annotations

from openhands.sdk.subagent import (
    DEFAULT_AGENT_NAME,
    AgentDefinition,
    AgentFactory,
    UnknownAgentError,
    canonical_agent_name,
    get_agent_factory,
    get_registered_agent_definitions,
)
from openhands.tools.preset.default import discover_builtin_agents, register_builtins_agents

__all__ = [
    "DEFAULT_SUBAGENT_TYPE",
    "UnknownSubagentTypeError",
    "available_subagents",
    "describe_subagents",
    "resolve_subagent",
]

DEFAULT_SUBAGENT_TYPE = DEFAULT_AGENT_NAME

UnknownSubagentTypeError = UnknownAgentError
"""No agent, registered or built in, has the requested name."""


def resolve_subagent(name: str | None) -> AgentFactory:
    """The registered agent `name` means, registering the built-ins first if it is one."""
    try:
        return get_agent_factory(name)
    except UnknownAgentError:
        builtins = {definition.name for definition in discover_builtin_agents()}
        if canonical_agent_name(name) not in builtins:
            known = ", ".join(definition.name for definition in available_subagents())
            raise UnknownSubagentTypeError(
                f"Unknown subagent_type {name!r}. Available types: {known}. "
                "Register more with openhands.sdk.subagent.register_agent()."
            ) from None
    register_builtins_agents(enable_browser=False)
    return get_agent_factory(name)


def available_subagents() -> list[AgentDefinition]:
    """Every agent a task may name: the registered ones and the built-ins, sorted by name."""
    definitions = {definition.name: definition for definition in discover_builtin_agents()}
    definitions.update(
        (definition.name, definition) for definition in get_registered_agent_definitions()
    )
    return [definitions[name] for name in sorted(definitions)]


def describe_subagents() -> str:
    """One Markdown line per available agent, for a tool description the LLM reads."""
    lines = []
    for definition in available_subagents():
        description = " ".join(definition.description.split()) or "(no description)"
        tools = f" (tools: {', '.join(definition.tools)})" if definition.tools else ""
        lines.append(f"- **{definition.name}**: {description}{tools}")
    return "\n".join(lines)
