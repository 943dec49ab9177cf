"""The default agent (terminal, file editor, task tracker; sub-agent tasks on request) and the
built-in sub-agents.

`cli_mode` and `enable_browser` are accepted so scripts written for the reference SDK run
unchanged; there is no browser tool here, so both change nothing, and the reference's
browser-only `web-researcher` sub-agent is not offered.
"""

from __future__ import annotations

import logging
from functools import cache
from pathlib import Path
from typing import Any, Final

from openhands.sdk.agent import Agent
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.llm import LLM
from openhands.sdk.subagent import (
    AgentDefinition,
    agent_definition_to_factory,
    load_agents_from_dir,
    register_agent_if_absent,
)
from openhands.sdk.tool import Tool

logger = logging.getLogger(__name__)

BUILTIN_AGENTS_DIR: Final[Path] = Path(__file__).with_name("subagents")
"""The Markdown definitions of the built-in sub-agents."""

BROWSER_ONLY_AGENTS: Final[frozenset[str]] = frozenset({"web-researcher"})
"""Reference built-ins that need a browser tool, which this project does not have."""


def register_default_tools(enable_browser: bool = False) -> None:
    """Kept for reference-SDK scripts: the default tools resolve by name without it (they are
    declared as `openhands.tools` entry points)."""


def get_default_tools(enable_browser: bool = False, *, enable_task: bool = False) -> list[Tool]:
    """Tool specs for the default agent: terminal, file_editor, task_tracker, as the
    reference's (so a reference server can build it too), and `task` with `enable_task`."""
    register_default_tools(enable_browser)
    tools = [Tool(name="terminal"), Tool(name="file_editor"), Tool(name="task_tracker")]
    if enable_task:
        tools.append(Tool(name="task"))
    return tools


def get_default_agent(
    llm: LLM, cli_mode: bool = False, *, enable_task: bool = False, **agent_fields: Any
) -> Agent:
    """An `Agent` with the default tools; other `Agent` fields (system_prompt...) pass through."""
    if "tools" in agent_fields:
        raise InvalidArgumentError(
            "get_default_agent sets tools itself; build Agent(...) for custom tools."
        )
    return Agent(llm=llm, tools=get_default_tools(enable_task=enable_task), **agent_fields)


@cache
def _builtin_definitions() -> tuple[AgentDefinition, ...]:
    # The files ship inside the package and never change while the process runs.
    return tuple(
        definition.model_copy(update={"level": "builtin"})
        for definition in load_agents_from_dir(BUILTIN_AGENTS_DIR)
    )


def discover_builtin_agents(enable_browser: bool = True) -> list[AgentDefinition]:
    """The built-in sub-agent definitions (`level="builtin"`), without registering them.

    general-purpose (terminal, file_editor, task_tracker), bash-runner (terminal) and
    code-explorer (terminal). `enable_browser` is accepted for the reference signature; the
    browser-only web-researcher is never among them (there is no browser tool).
    """
    del enable_browser
    return list(_builtin_definitions())


def register_builtins_agents(enable_browser: bool = True) -> list[str]:
    """Register the built-in sub-agents unless their names are taken; return those registered.

    Agents a script registered first (`register_agent`) keep their names.
    """
    if enable_browser:
        logger.info(
            "Built-in sub-agent(s) %s not registered: they need a browser tool, which this "
            "project does not have.",
            ", ".join(sorted(BROWSER_ONLY_AGENTS)),
        )
    registered: list[str] = []
    for definition in discover_builtin_agents(enable_browser=enable_browser):
        factory = agent_definition_to_factory(definition)
        if register_agent_if_absent(definition.name, factory, definition):
            registered.append(definition.name)
    return registered
