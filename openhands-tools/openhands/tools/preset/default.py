"""The default agent: terminal, file editor and sub-agent tasks.

`cli_mode` and `enable_browser` are accepted so scripts written for the reference SDK run
unchanged; there is no browser tool here, so both change nothing.
"""

from __future__ import annotations

from typing import Any

from openhands.sdk.agent import Agent
from openhands.sdk.llm import LLM
from openhands.sdk.tool import Tool


def register_default_tools(enable_browser: bool = False) -> None:
    """Kept for reference-SDK scripts: the default tools resolve by name without it (they are
    declared as `openhands.tools` entry points)."""


def get_default_tools(enable_browser: bool = False, *, enable_task: bool = True) -> list[Tool]:
    """Tool specs for the default agent: terminal, file_editor and (optionally) task."""
    register_default_tools(enable_browser)
    tools = [Tool(name="terminal"), Tool(name="file_editor")]
    if enable_task:
        tools.append(Tool(name="task"))
    return tools


def get_default_agent(
    llm: LLM, cli_mode: bool = False, *, enable_task: bool = True, **agent_fields: Any
) -> Agent:
    """An `Agent` with the default tools; other `Agent` fields (system_prompt...) pass through."""
    if "tools" in agent_fields:
        raise ValueError("get_default_agent sets tools itself; build Agent(...) for custom tools.")
    return Agent(llm=llm, tools=get_default_tools(enable_task=enable_task), **agent_fields)
