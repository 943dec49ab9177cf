"""The built-in sub-agents: read from the package's Markdown files, registered if absent."""

from __future__ import annotations

import openhands.tools
import pytest
from openhands.sdk import LLM, Agent
from openhands.sdk.agent import AgentBase
from openhands.sdk.subagent import get_agent_factory, register_agent
from openhands.sdk.testing import TestLLM
from openhands.tools.preset import discover_builtin_agents, register_builtins_agents

pytestmark = pytest.mark.usefixtures("isolated_agents")

BUILTINS = ["bash-runner", "code-explorer", "general-purpose", "web-researcher"]


def _mine(llm: LLM) -> AgentBase:
    return Agent(llm=llm, tools=[], system_prompt="mine")


def test_the_builtins_are_four_agents_with_their_tools() -> None:
    found = {d.name: d for d in discover_builtin_agents()}
    assert sorted(found) == BUILTINS
    assert found["web-researcher"].tools == ["browser_tool_set"]
    assert found["general-purpose"].tools == ["terminal", "file_editor", "task_tracker"]
    assert found["bash-runner"].tools == ["terminal"]
    assert found["code-explorer"].tools == ["terminal"]
    assert {d.level for d in found.values()} == {"builtin"}
    assert all(d.description and d.system_prompt for d in found.values())


def test_registering_them_twice_registers_them_once() -> None:
    assert register_builtins_agents() == BUILTINS
    assert register_builtins_agents() == []


def test_an_agent_registered_first_keeps_its_name() -> None:
    register_agent("bash-runner", _mine, "my runner")
    assert register_builtins_agents(enable_browser=False) == ["code-explorer", "general-purpose"]
    assert get_agent_factory("bash-runner").definition.description == "my runner"


def test_a_builtin_builds_an_agent_with_its_tools_and_instructions() -> None:
    register_builtins_agents()
    agent = get_agent_factory("general-purpose").factory_func(TestLLM.from_messages([]))
    assert [tool.name for tool in agent.tools] == ["terminal", "file_editor", "task_tracker"]
    assert agent.agent_context is not None
    suffix = agent.agent_context.system_message_suffix or ""
    assert "You are a sub-agent" in suffix


def test_the_browser_only_researcher_is_left_out_without_the_browser() -> None:
    assert "web-researcher" not in {d.name for d in discover_builtin_agents(enable_browser=False)}
    assert "web-researcher" not in register_builtins_agents(enable_browser=False)


def test_register_builtins_agents_is_exported_from_the_tools_package() -> None:
    assert openhands.tools.register_builtins_agents is register_builtins_agents
