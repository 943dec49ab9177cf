"""The GPT-5 preset: the default agent with `apply_patch` instead of `file_editor`.

GPT-5-class models are trained to edit files with patches in the apply_patch format; they
edit more reliably with that tool than with str_replace-style editing. `cli_mode` and
`enable_browser` are accepted for reference-SDK scripts (there is no browser tool here).
"""

from __future__ import annotations

from typing import Any

from openhands.sdk.agent import Agent
from openhands.sdk.context.condenser import LLMSummarizingCondenser
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.llm import LLM
from openhands.sdk.tool import Tool

__all__ = ["get_gpt5_agent", "get_gpt5_condenser", "get_gpt5_tools", "register_gpt5_tools"]


def register_gpt5_tools(enable_browser: bool = True) -> None:
    """Kept for reference-SDK scripts: the tools resolve by name through entry points."""


def get_gpt5_tools(enable_browser: bool = True) -> list[Tool]:
    """Tool specs of the GPT-5 preset: terminal, apply_patch and task_tracker."""
    register_gpt5_tools(enable_browser)
    return [Tool(name="terminal"), Tool(name="apply_patch"), Tool(name="task_tracker")]


def get_gpt5_condenser(llm: LLM) -> LLMSummarizingCondenser:
    """The preset's condenser: summarize past 80 events, keeping the first 4."""
    return LLMSummarizingCondenser(llm=llm, max_size=80, keep_first=4)


def get_gpt5_agent(llm: LLM, cli_mode: bool = False, **agent_fields: Any) -> Agent:
    """An agent for GPT-5-class models: the GPT-5 tools and condenser (the condenser's LLM
    is a copy of `llm` counted under usage_id `condenser`)."""
    if "tools" in agent_fields:
        raise InvalidArgumentError(
            "get_gpt5_agent sets tools itself; build Agent(...) for custom tools."
        )
    agent_fields.setdefault(
        "condenser", get_gpt5_condenser(llm.model_copy(update={"usage_id": "condenser"}))
    )
    return Agent(llm=llm, tools=get_gpt5_tools(enable_browser=not cli_mode), **agent_fields)
