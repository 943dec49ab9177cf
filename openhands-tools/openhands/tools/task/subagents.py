"""Sub-agent types: named recipes that build the `Agent` a task runs, from an LLM."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from openhands.sdk.agent import DEFAULT_SYSTEM_PROMPT, Agent, AgentBase
from openhands.sdk.errors import OpenHandsError
from openhands.sdk.llm import LLM
from openhands.sdk.tool import Tool

DEFAULT_SUBAGENT_TYPE = "general-purpose"

SUBAGENT_PROMPT = (
    DEFAULT_SYSTEM_PROMPT
    + """

You are a sub-agent: another agent delegated one task to you. Work on it alone with the
terminal and file_editor tools. Your final `finish` message is all the other agent sees of
your work, so make it a complete, self-contained report: what you found or changed (files,
commands, results) and anything left undone."""
)

SubagentFactory = Callable[[LLM], AgentBase]


class UnknownSubagentTypeError(OpenHandsError, ValueError):
    """No sub-agent type is registered under the requested name."""


@dataclass(frozen=True)
class SubagentType:
    """A registered sub-agent recipe and the one-line description the LLM sees."""

    name: str
    description: str
    factory: SubagentFactory


def general_purpose_agent(llm: LLM) -> AgentBase:
    """A sub-agent with the terminal and the file editor (no task tool: no recursion)."""
    return Agent(
        llm=llm,
        tools=[Tool(name="terminal"), Tool(name="file_editor")],
        system_prompt=SUBAGENT_PROMPT,
    )


_lock = threading.Lock()
_types: dict[str, SubagentType] = {
    DEFAULT_SUBAGENT_TYPE: SubagentType(
        DEFAULT_SUBAGENT_TYPE,
        "Researches, edits files and runs commands in the workspace.",
        general_purpose_agent,
    )
}


def register_subagent_type(name: str, factory: SubagentFactory, description: str = "") -> None:
    """Make `subagent_type=name` build its agent with `factory(llm)`."""
    if not name.strip():
        raise ValueError("register_subagent_type needs a non-blank name")
    with _lock:
        _types[name] = SubagentType(name, description, factory)


def get_subagent_type(name: str) -> SubagentType:
    """The recipe registered under `name`, or an error listing the known ones."""
    with _lock:
        found = _types.get(name)
        known = ", ".join(sorted(_types))
    if found is None:
        raise UnknownSubagentTypeError(
            f"Unknown subagent_type {name!r}. Known types: {known}. "
            "Register more with register_subagent_type()."
        )
    return found


def subagent_types() -> list[SubagentType]:
    """Every registered sub-agent type, sorted by name."""
    with _lock:
        return [_types[name] for name in sorted(_types)]
