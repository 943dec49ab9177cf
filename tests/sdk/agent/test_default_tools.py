"""`include_default_tools` (class names; old bools still load) and `tools_map`."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk import Agent, LocalConversation, Tool
from openhands.sdk.testing import TestLLM
from pydantic import ValidationError


def _agent(**fields) -> Agent:
    return Agent(llm=TestLLM.from_messages([]), **fields)


def test_by_default_finish_and_think_are_included(workspace_dir: Path) -> None:
    agent = _agent()
    conversation = LocalConversation(agent, workspace_dir)

    assert agent.include_default_tools == ["FinishTool", "ThinkTool"]
    assert sorted(conversation.tools) == ["finish", "think"]
    conversation.close()


def test_a_list_of_class_names_picks_the_built_in_tools(workspace_dir: Path) -> None:
    conversation = LocalConversation(_agent(include_default_tools=["ThinkTool"]), workspace_dir)

    assert sorted(conversation.tools) == ["think"]
    conversation.close()


def test_saved_booleans_still_load() -> None:
    assert Agent.model_validate(
        {"llm": {"model": "m"}, "include_default_tools": True}
    ).include_default_tools == ["FinishTool", "ThinkTool"]
    assert (
        Agent.model_validate(
            {"llm": {"model": "m"}, "include_default_tools": False}
        ).include_default_tools
        == []
    )


def test_an_unknown_built_in_tool_name_is_refused_naming_the_choices() -> None:
    with pytest.raises(ValidationError, match="FinishTool"):
        _agent(include_default_tools=["BrowserTool"])


def test_tools_map_holds_the_tools_built_for_the_conversation(
    workspace_dir: Path, echo_received
) -> None:
    agent = _agent(tools=[Tool(name="echo")])
    conversation = LocalConversation(agent, workspace_dir)

    assert sorted(agent.tools_map) == ["echo", "finish", "think"]
    assert agent.tools_map["echo"] is conversation.tools["echo"]
    conversation.close()


def test_tools_map_before_any_conversation_says_what_to_do() -> None:
    with pytest.raises(RuntimeError, match="create a Conversation"):
        _ = _agent().tools_map
