"""The process-wide sub-agent registry: name -> (factory, definition).

Tools that run sub-agents (`task`, `delegate`, `workflow` in openhands-tools) look agents up
here by the name the LLM gives (`subagent_type`). The first registration of a name wins:
`register_agent` refuses a second one, `register_agent_if_absent` (used for file-based and
built-in agents) skips it, so a script's own agents always beat files and built-ins.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.subagent.load import load_project_agents, load_user_agents
from openhands.sdk.subagent.schema import AgentDefinition, AgentDefinitionError

if TYPE_CHECKING:
    from openhands.sdk.agent import AgentBase
    from openhands.sdk.llm import LLM

__all__ = [
    "DEFAULT_AGENT_NAME",
    "AgentFactory",
    "AgentFactoryFunc",
    "DuplicateAgentError",
    "UnknownAgentError",
    "agent_definition_to_factory",
    "canonical_agent_name",
    "get_agent_factory",
    "get_factory_info",
    "get_registered_agent_definitions",
    "register_agent",
    "register_agent_if_absent",
    "register_file_agents",
    "unregister_agent",
]

logger = logging.getLogger(__name__)

AgentFactoryFunc = Callable[["LLM"], "AgentBase"]
"""Builds a sub-agent from the LLM it should run on (usually the parent's)."""

DEFAULT_AGENT_NAME: Final[str] = "general-purpose"
"""The agent a blank, None or `default` name means."""

_ALIASES: Final[dict[str, str]] = {
    "default": DEFAULT_AGENT_NAME,
    "default cli mode": DEFAULT_AGENT_NAME,
    "general purpose": DEFAULT_AGENT_NAME,
    "explore": "code-explorer",
    "bash": "bash-runner",
}
"""Older names scripts and LLMs still use."""


class UnknownAgentError(OpenHandsError, ValueError):
    """No agent is registered under the requested name; the message lists the known ones."""


class DuplicateAgentError(OpenHandsError, ValueError):
    """`register_agent` was given a name that is already registered."""


class AgentFactory(NamedTuple):
    """A registered agent: how to build it, and its definition (what the LLM is told)."""

    factory_func: AgentFactoryFunc
    definition: AgentDefinition


_lock = threading.RLock()
_agents: dict[str, AgentFactory] = {}


def canonical_agent_name(name: str | None) -> str:
    """The registry key `name` means: blank/None/`default` -> general-purpose, old aliases."""
    if name is None or not name.strip():
        return DEFAULT_AGENT_NAME
    cleaned = name.strip()
    return _ALIASES.get(cleaned, cleaned)


def _definition(name: str, description: str | AgentDefinition) -> AgentDefinition:
    if not name or not name.strip():
        raise AgentDefinitionError("An agent needs a non-blank name.")
    if isinstance(description, AgentDefinition):
        return description
    return AgentDefinition(name=name, description=description, level="programmatic")


def register_agent(
    name: str, factory_func: AgentFactoryFunc, description: str | AgentDefinition
) -> None:
    """Register `factory_func` as the agent `name`; `DuplicateAgentError` if it exists.

    `description` is a line for the LLM, or a full `AgentDefinition` (tools, prompt, hooks).
    """
    definition = _definition(name, description)
    with _lock:
        if name in _agents:
            raise DuplicateAgentError(
                f"Agent {name!r} is already registered; pick another name, or use "
                "register_agent_if_absent() to keep the first registration."
            )
        _agents[name] = AgentFactory(factory_func, definition)


def register_agent_if_absent(
    name: str, factory_func: AgentFactoryFunc, description: str | AgentDefinition
) -> bool:
    """Like `register_agent`, but keep an existing agent of that name; True if registered."""
    definition = _definition(name, description)
    with _lock:
        if name in _agents:
            return False
        _agents[name] = AgentFactory(factory_func, definition)
        return True


def unregister_agent(name: str) -> bool:
    """Forget the agent `name`; True if it was registered. Running sub-agents are unaffected."""
    with _lock:
        return _agents.pop(name, None) is not None


def get_agent_factory(name: str | None) -> AgentFactory:
    """The agent registered under `name` (see `canonical_agent_name`), or `UnknownAgentError`."""
    key = canonical_agent_name(name)
    with _lock:
        found = _agents.get(key)
        known = sorted(_agents)
    if found is None:
        listed = ", ".join(known) or "none registered"
        raise UnknownAgentError(
            f"Unknown agent {name!r}. Available agents: {listed}. "
            "Register one with register_agent()."
        )
    return found


def get_registered_agent_definitions() -> list[AgentDefinition]:
    """The definitions of every registered agent, in registration order."""
    with _lock:
        return [entry.definition for entry in _agents.values()]


def get_factory_info() -> str:
    """One Markdown line per registered agent (`- **name**: description (tools: ...)`)."""
    with _lock:
        entries = sorted(_agents.items())
    if not entries:
        return "- No agents registered yet. Call register_agent(...) to add one."
    return "\n".join(_describe(name, entry.definition) for name, entry in entries)


def _describe(name: str, definition: AgentDefinition) -> str:
    tools = f" (tools: {', '.join(definition.tools)})" if definition.tools else ""
    description = " ".join(definition.description.split()) or "(no description)"
    return f"- **{name}**: {description}{tools}"


def agent_definition_to_factory(
    agent_def: AgentDefinition, work_dir: str | Path | None = None
) -> Callable[[LLM], AgentBase]:
    """A factory that builds `agent_def` as an `Agent` on the LLM it is given.

    Tools become `Tool(name=...)` specs (an unregistered name is refused when the agent is
    built); the definition's `system_prompt` becomes `AgentContext.system_message_suffix`;
    `mcp_config` passes through. `model: inherit` runs on the given LLM; another model names
    a profile saved in an `LLMProfileStore` (`profile_store_dir`, default the user's). Skills by name are not loadable here
    yet: a definition naming skills is refused at once (put their text in `system_prompt`).
    `work_dir` is where named skills would be looked up.
    """
    del work_dir  # kept for the reference signature: it only matters for named skills
    if agent_def.skills:
        raise AgentDefinitionError(
            f"Agent {agent_def.name!r} names skills {agent_def.skills}, but this SDK cannot "
            "load skills by name yet; put their instructions in the definition's system_prompt."
        )

    def build(llm: LLM) -> AgentBase:
        from openhands.sdk.agent import Agent
        from openhands.sdk.context import AgentContext
        from openhands.sdk.tool import Tool, registered_tools

        available = set(registered_tools())
        missing = [name for name in agent_def.tools if name not in available]
        if missing:
            raise AgentDefinitionError(
                f"Agent {agent_def.name!r} names tools that are not registered: {missing}. "
                f"Registered tools: {', '.join(sorted(available))}."
            )
        context = (
            AgentContext(system_message_suffix=agent_def.system_prompt)
            if agent_def.system_prompt
            else None
        )
        return Agent(
            llm=_agent_llm(agent_def, llm),
            tools=[Tool(name=name) for name in agent_def.tools],
            agent_context=context,
            mcp_config=dict(agent_def.mcp_config or {}),
        )

    return build


def _agent_llm(agent_def: AgentDefinition, llm: LLM) -> LLM:
    """The given LLM for `model: inherit`; otherwise the named LLM profile."""
    if not agent_def.model or agent_def.model == "inherit":
        return llm
    from openhands.sdk.llm.llm_profile_store import LLMProfileStore

    store = LLMProfileStore(agent_def.profile_store_dir)
    profile = agent_def.model.removesuffix(".json")
    available = [name.removesuffix(".json") for name in store.list()]
    if profile not in available:
        raise AgentDefinitionError(
            f"Agent {agent_def.name!r}: LLM profile {profile!r} not found; "
            f"available profiles: {available}."
        )
    return store.load(profile)


def register_file_agents(work_dir: str | Path) -> list[str]:
    """Register (if absent) the project's and the user's file agents; return the new names.

    Project agents beat user agents of the same name; registered agents are never replaced.
    """
    seen: set[str] = set()
    registered: list[str] = []
    for definition in [*load_project_agents(work_dir), *load_user_agents()]:
        if definition.name in seen:
            continue
        seen.add(definition.name)
        try:
            factory = agent_definition_to_factory(definition, work_dir=work_dir)
        except AgentDefinitionError as exc:
            logger.warning("Skipping file agent %r: %s", definition.name, exc)
            continue
        if register_agent_if_absent(definition.name, factory, definition):
            registered.append(definition.name)
            logger.info("Registered file agent %r from %s", definition.name, definition.source)
    return registered
