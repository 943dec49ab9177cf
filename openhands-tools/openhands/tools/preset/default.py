"""The default agent (terminal, file editor, task tracker, the browser; sub-agent tasks on
request) and the built-in sub-agents.

As in the reference SDK, the browser is part of the default tools unless `enable_browser`
is False (and `get_default_agent(cli_mode=True)` leaves it out); the browser-only
`web-researcher` sub-agent is offered with it. Chromium starts only on the agent's first
browser action, so a default agent that never browses costs nothing more than the tool's
description in its prompt.
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
"""Built-in sub-agents that need the browser tool (left out with `enable_browser=False`)."""

BROWSER_TOOL: Final[str] = "browser_tool_set"
"""The name the browser tool set resolves by (`BrowserToolSet.name`)."""


def register_default_tools(enable_browser: bool = True) -> None:
    """Kept for reference-SDK scripts: the default tools resolve by name without it (they are
    declared as `openhands.tools` entry points)."""


def get_default_tools(
    enable_browser: bool = True,
    enable_sub_agents: bool = False,
    *,
    enable_task: bool = False,
) -> list[Tool]:
    """Tool specs for the default agent, as the reference's (so a reference server can build
    it too): terminal, file_editor, task_tracker, the browser unless `enable_browser` is
    False, and sub-agent tasks (`task`) with `enable_sub_agents` (or `enable_task`)."""
    register_default_tools(enable_browser)
    tools = [Tool(name="terminal"), Tool(name="file_editor"), Tool(name="task_tracker")]
    if enable_browser:
        tools.append(Tool(name=BROWSER_TOOL))
    if enable_sub_agents or enable_task:
        tools.append(Tool(name="task"))
    return tools


def get_default_agent(
    llm: LLM,
    cli_mode: bool = False,
    *,
    enable_browser: bool | None = None,
    enable_task: bool = False,
    **agent_fields: Any,
) -> Agent:
    """An `Agent` with the default tools (the browser left out in `cli_mode`, as in the
    reference); other `Agent` fields (system_prompt...) pass through."""
    if "tools" in agent_fields:
        raise InvalidArgumentError(
            "get_default_agent sets tools itself; build Agent(...) for custom tools."
        )
    browser = not cli_mode if enable_browser is None else enable_browser
    tools = get_default_tools(enable_browser=browser, enable_task=enable_task)
    return Agent(llm=llm, tools=tools, **agent_fields)


@cache
def _builtin_definitions() -> tuple[AgentDefinition, ...]:
    # The files ship inside the package and never change while the process runs.
    return tuple(
        definition.model_copy(update={"level": "builtin"})
        for definition in load_agents_from_dir(BUILTIN_AGENTS_DIR)
    )


def discover_builtin_agents(enable_browser: bool = True) -> list[AgentDefinition]:
    """The built-in sub-agent definitions (`level="builtin"`), without registering them.

    general-purpose (terminal, file_editor, task_tracker), bash-runner (terminal),
    code-explorer (terminal) and, unless `enable_browser` is False, web-researcher (the
    browser).
    """
    return [
        definition
        for definition in _builtin_definitions()
        if enable_browser or definition.name not in BROWSER_ONLY_AGENTS
    ]


def register_builtins_agents(enable_browser: bool = True) -> list[str]:
    """Register the built-in sub-agents unless their names are taken; return those registered.

    Agents a script registered first (`register_agent`) keep their names.
    """
    registered: list[str] = []
    for definition in discover_builtin_agents(enable_browser=enable_browser):
        factory = agent_definition_to_factory(definition)
        if register_agent_if_absent(definition.name, factory, definition):
            registered.append(definition.name)
    return registered
