"""The Gemini preset: the default agent with the Gemini file tools instead of `file_editor`.

Gemini models are trained on gemini-cli's file tools (read_file, write_file, edit,
list_directory); see `openhands.tools.gemini`.
"""

from __future__ import annotations

from typing import Any

from openhands.sdk.agent import Agent
from openhands.sdk.context.condenser import LLMSummarizingCondenser
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.llm import LLM
from openhands.sdk.tool import Tool

__all__ = ["get_gemini_agent", "get_gemini_condenser", "get_gemini_tools", "register_gemini_tools"]


def register_gemini_tools(enable_browser: bool = True) -> None:
    """Kept for reference-SDK scripts: the tools resolve by name through entry points."""


def get_gemini_tools(enable_browser: bool = True) -> list[Tool]:
    """Tool specs of the Gemini preset: terminal, the four Gemini file tools, task_tracker."""
    from openhands.tools.gemini import GEMINI_FILE_TOOLS

    register_gemini_tools(enable_browser)
    return [Tool(name="terminal"), *GEMINI_FILE_TOOLS, Tool(name="task_tracker")]


def get_gemini_condenser(llm: LLM) -> LLMSummarizingCondenser:
    """The preset's condenser: summarize past 80 events, keeping the first 4."""
    return LLMSummarizingCondenser(llm=llm, max_size=80, keep_first=4)


def get_gemini_agent(llm: LLM, cli_mode: bool = False, **agent_fields: Any) -> Agent:
    """An agent for Gemini models: the Gemini tools and condenser (the condenser's LLM is a
    copy of `llm` counted under usage_id `condenser`)."""
    if "tools" in agent_fields:
        raise InvalidArgumentError(
            "get_gemini_agent sets tools itself; build Agent(...) for custom tools."
        )
    agent_fields.setdefault(
        "condenser", get_gemini_condenser(llm.model_copy(update={"usage_id": "condenser"}))
    )
    return Agent(llm=llm, tools=get_gemini_tools(enable_browser=not cli_mode), **agent_fields)
