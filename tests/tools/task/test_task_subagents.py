"""The task tool runs the agents of the SDK registry: registered, file-based and built-in."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk import (
    LLM,
    Agent,
    AgentErrorEvent,
    Event,
    LocalConversation,
    Message,
    ObservationEvent,
    Tool,
)
from openhands.sdk.agent import AgentBase
from openhands.sdk.hooks import HookConfig
from openhands.sdk.subagent import (
    AgentDefinition,
    agent_definition_to_factory,
    get_agent_factory,
    register_agent,
    register_file_agents,
)
from openhands.sdk.testing import TestLLM
from openhands.sdk.tool import ToolContext, resolve_tool

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("isolated_agents")]

Factory = Callable[..., Message]


def _prompted(prompt: str) -> Callable[[LLM], AgentBase]:
    def build(llm: LLM) -> AgentBase:
        return Agent(llm=llm, tools=[], system_prompt=prompt)

    return build


def _parent(llm: TestLLM, workspace: Path, **kwargs: Any) -> LocalConversation:
    agent = Agent(llm=llm, tools=[Tool(name="TaskToolSet")])
    return LocalConversation(agent, workspace, **kwargs)


def _task_observation(conversation: LocalConversation) -> ObservationEvent:
    [observation] = [
        event
        for event in conversation.state.events
        if isinstance(event, ObservationEvent) and event.tool_name == "task"
    ]
    return observation


def _system_text(call: list[Message]) -> str:
    return call[0].text


def test_task_runs_the_registered_agent_its_subagent_type_names(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    register_agent("zoologist", _prompted("You are a zoologist."), "Knows animals.")
    llm = TestLLM.from_messages(
        [
            tool_call("task", prompt="ask about owls", subagent_type="zoologist"),
            reply("Owls can turn their heads 270 degrees."),
            reply("parent done"),
        ]
    )
    conversation = _parent(llm, workspace)
    conversation.send_message("quiz me")
    conversation.run()
    observation = _task_observation(conversation)
    conversation.close()
    assert _system_text(llm.calls[1]) == "You are a zoologist."
    assert "Owls can turn their heads 270 degrees." in observation.text
    assert observation.observation.model_dump(mode="json")["status"] == "completed"


def test_a_builtin_type_works_without_registration(
    workspace: Path,
    persistence_dir: Path,
    tool_call: Factory,
    reply: Callable[[str], Message],
) -> None:
    llm = TestLLM.from_messages(
        [
            tool_call("task", prompt="find main()", subagent_type="code-explorer"),
            reply("main() is in app.py:3"),
            reply("parent done"),
        ]
    )
    conversation = _parent(llm, workspace, persistence_dir=persistence_dir)
    conversation.send_message("explore")
    conversation.run()
    observation = _task_observation(conversation)
    folder = conversation.state.folder
    conversation.close()
    assert not observation.is_error
    assert get_agent_factory("code-explorer").definition.level == "builtin"
    assert folder is not None
    sub_log = (
        folder
        / "subagents"
        / observation.observation.model_dump(mode="json")["conversation_id"]
        / "events.jsonl"
    )
    first = json.loads(sub_log.read_text(encoding="utf-8").splitlines()[0])
    assert first["kind"] == "SystemPromptEvent"
    assert {tool["function"]["name"] for tool in first["tools"]} == {"finish", "think", "terminal"}


def test_an_agent_a_script_registers_under_a_builtin_name_wins(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    register_agent("general-purpose", _prompted("My own general agent."), "mine")
    llm = TestLLM.from_messages([tool_call("task", prompt="do it"), reply("done"), reply("ok")])
    conversation = _parent(llm, workspace)
    conversation.send_message("go")
    conversation.run()
    conversation.close()
    assert _system_text(llm.calls[1]) == "My own general agent."


def test_an_unknown_type_is_an_error_the_agent_reads(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    register_agent("zoologist", _prompted("z"), "z")
    llm = TestLLM.from_messages(
        [tool_call("task", prompt="cast a spell", subagent_type="wizard"), reply("ok")]
    )
    conversation = _parent(llm, workspace)
    conversation.send_message("go")
    conversation.run()
    observation = _task_observation(conversation)
    conversation.close()
    assert observation.is_error
    assert "Unknown subagent_type 'wizard'" in observation.text
    assert "general-purpose" in observation.text and "zoologist" in observation.text


def test_a_definitions_iteration_cap_applies_to_its_runs(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    definition = AgentDefinition(name="brief", max_iteration_per_run=1)
    register_agent("brief", agent_definition_to_factory(definition), definition)
    llm = TestLLM.from_messages(
        [
            tool_call("task", prompt="think hard", subagent_type="brief"),
            tool_call("think", thought="one step, not finished"),
            reply("parent done"),
        ]
    )
    conversation = _parent(llm, workspace)
    conversation.send_message("go")
    conversation.run()
    observation = _task_observation(conversation)
    conversation.close()
    assert observation.is_error
    assert "MaxIterationsReached" in observation.text
    assert llm.remaining == 0


def test_a_definitions_hooks_run_in_the_sub_conversation(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    hooks = HookConfig.model_validate({"stop": [{"hooks": [{"command": "touch sub-stopped"}]}]})
    definition = AgentDefinition(name="hooked", hooks=hooks)
    register_agent("hooked", agent_definition_to_factory(definition), definition)
    llm = TestLLM.from_messages(
        [tool_call("task", prompt="go", subagent_type="hooked"), reply("sub done"), reply("ok")]
    )
    conversation = _parent(llm, workspace)
    conversation.send_message("go")
    conversation.run()
    conversation.close()
    assert (workspace / "sub-stopped").exists()


def test_a_file_based_agent_gets_only_its_tools(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    agents = workspace / ".agents" / "agents"
    agents.mkdir(parents=True)
    (agents / "grammar.md").write_text(
        "---\nname: grammar-checker\ndescription: Checks grammar.\ntools: [file_editor]\n---\n"
        "You are a grammar expert.\n",
        encoding="utf-8",
    )
    assert register_file_agents(workspace) == ["grammar-checker"]
    llm = TestLLM.from_messages(
        [
            tool_call("task", prompt="check README.md", subagent_type="grammar-checker"),
            tool_call("terminal", command="cat README.md"),  # not one of its tools
            reply("I have no terminal; README.md is fine."),
            reply("parent done"),
        ]
    )
    seen: list[Event] = []
    conversation = _parent(llm, workspace, callbacks=[seen.append])
    conversation.send_message("check the grammar")
    conversation.run()
    observation = _task_observation(conversation)
    conversation.close()
    assert "I have no terminal" in observation.text
    refusal = llm.calls[2][-1]
    assert refusal.role == "tool" and "Unknown tool 'terminal'" in refusal.text
    assert not any(isinstance(event, AgentErrorEvent) for event in seen)  # only the sub's


def test_the_tool_description_lists_registered_and_builtin_agents(tmp_path: Path) -> None:
    register_agent("zoologist", _prompted("z"), "Knows animals.")
    [tool] = resolve_tool(Tool(name="task"), ToolContext(working_dir=str(tmp_path)))
    description = tool.to_openai_tool()["function"]["description"]
    assert "- **zoologist**: Knows animals." in description
    assert "- **code-explorer**:" in description and "(tools: terminal)" in description
