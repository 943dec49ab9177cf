"""The agent registry: first registration wins; definitions become working agent factories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from openhands.sdk import LLM, Agent, agent_definition_to_factory, register_agent
from openhands.sdk.agent import AgentBase
from openhands.sdk.llm.llm_profile_store import LLMProfileStore
from openhands.sdk.subagent import (
    AgentDefinition,
    AgentDefinitionError,
    DuplicateAgentError,
    UnknownAgentError,
    get_agent_factory,
    get_factory_info,
    get_registered_agent_definitions,
    register_agent_if_absent,
    register_file_agents,
    unregister_agent,
)
from openhands.sdk.testing import TestLLM


def _agent_named(prompt: str) -> Callable[[LLM], AgentBase]:
    def build(llm: LLM) -> AgentBase:
        return Agent(llm=llm, tools=[], system_prompt=prompt)

    return build


@pytest.fixture
def llm() -> TestLLM:
    return TestLLM.from_messages([])


def test_a_registered_agent_is_built_by_its_factory(llm: TestLLM) -> None:
    register_agent("zoologist", _agent_named("I know animals"), "Knows animals.")
    factory = get_agent_factory("zoologist")
    agent = factory.factory_func(llm)
    assert agent.system_prompt == "I know animals"
    assert agent.llm is llm
    assert factory.definition.name == "zoologist"
    assert factory.definition.description == "Knows animals."


def test_registering_a_name_twice_is_refused(llm: TestLLM) -> None:
    register_agent("zoologist", _agent_named("first"), "first")
    with pytest.raises(DuplicateAgentError, match="already registered"):
        register_agent("zoologist", _agent_named("second"), "second")
    assert get_agent_factory("zoologist").factory_func(llm).system_prompt == "first"
    assert issubclass(DuplicateAgentError, ValueError)


def test_register_if_absent_keeps_the_first(llm: TestLLM) -> None:
    assert register_agent_if_absent("x", _agent_named("first"), "first") is True
    assert register_agent_if_absent("x", _agent_named("second"), "second") is False
    assert get_agent_factory("x").factory_func(llm).system_prompt == "first"


def test_a_blank_name_is_refused() -> None:
    with pytest.raises(ValueError, match="non-blank name"):
        register_agent("  ", _agent_named("x"), "x")


@pytest.mark.parametrize("name", [None, "", "default", "general purpose"])
def test_default_names_mean_general_purpose(name: str | None) -> None:
    register_agent("general-purpose", _agent_named("gp"), "gp")
    assert get_agent_factory(name).definition.name == "general-purpose"


def test_old_aliases_map_to_their_new_names() -> None:
    register_agent("code-explorer", _agent_named("ce"), "ce")
    register_agent("bash-runner", _agent_named("br"), "br")
    assert get_agent_factory("explore").definition.name == "code-explorer"
    assert get_agent_factory("bash").definition.name == "bash-runner"


def test_an_unknown_name_lists_the_known_ones() -> None:
    register_agent("alpha", _agent_named("a"), "a")
    with pytest.raises(UnknownAgentError, match=r"Unknown agent 'beta'.*Available agents: alpha"):
        get_agent_factory("beta")


def test_unregistering_frees_the_name() -> None:
    register_agent("x", _agent_named("a"), "a")
    assert unregister_agent("x") is True
    assert unregister_agent("x") is False
    with pytest.raises(UnknownAgentError):
        get_agent_factory("x")


def test_definitions_and_info_list_every_agent() -> None:
    register_agent("b-agent", _agent_named("b"), "Does b.")
    definition = AgentDefinition(name="a-agent", description="Does\n  a.", tools=["terminal"])
    register_agent("a-agent", agent_definition_to_factory(definition), definition)
    assert [d.name for d in get_registered_agent_definitions()] == ["b-agent", "a-agent"]
    assert get_factory_info() == (
        "- **a-agent**: Does a. (tools: terminal)\n- **b-agent**: Does b."
    )


def test_info_says_when_nothing_is_registered() -> None:
    assert "No agents registered" in get_factory_info()


def test_a_definition_builds_an_agent_with_its_tools_prompt_and_mcp(llm: TestLLM) -> None:
    definition = AgentDefinition(
        name="checker",
        tools=["think", "finish"],
        system_prompt="Find grammar errors.",
        mcp_config={"fetch": {"command": "uvx"}},
    )
    agent = agent_definition_to_factory(definition)(llm)
    assert [tool.name for tool in agent.tools] == ["think", "finish"]
    assert agent.agent_context is not None
    assert agent.agent_context.system_message_suffix == "Find grammar errors."
    assert list(agent.mcp_config) == ["fetch"]
    assert agent.mcp_config["fetch"].command == "uvx"
    assert agent.llm is llm


def test_a_definition_without_a_prompt_has_no_context(llm: TestLLM) -> None:
    agent = agent_definition_to_factory(AgentDefinition(name="plain"))(llm)
    assert agent.agent_context is None and agent.tools == []


def test_an_unregistered_tool_is_refused_when_the_agent_is_built(llm: TestLLM) -> None:
    factory = agent_definition_to_factory(AgentDefinition(name="x", tools=["no_such_tool"]))
    with pytest.raises(AgentDefinitionError, match="no_such_tool"):
        factory(llm)


def test_named_skills_are_refused_at_once() -> None:
    with pytest.raises(AgentDefinitionError, match="cannot load skills by name"):
        agent_definition_to_factory(AgentDefinition(name="x", skills=["lint"]))


def test_a_missing_model_profile_is_refused_naming_the_saved_ones(
    tmp_path: Path, llm: TestLLM
) -> None:
    LLMProfileStore(tmp_path).save("slow", LLM(model="openai/slow", usage_id="slow"))
    definition = AgentDefinition(name="x", model="fast", profile_store_dir=str(tmp_path))
    with pytest.raises(
        AgentDefinitionError, match=r"'fast' not found; available profiles: \['slow'\]"
    ):
        agent_definition_to_factory(definition)(llm)


def test_a_model_profile_runs_the_agent_on_the_saved_llm(tmp_path: Path, llm: TestLLM) -> None:
    LLMProfileStore(tmp_path).save("fast", LLM(model="openai/fast", usage_id="fast"))
    definition = AgentDefinition(name="x", model="fast", profile_store_dir=str(tmp_path))

    agent = agent_definition_to_factory(definition)(llm)

    assert agent.llm.model == "openai/fast"


def test_file_agents_register_without_replacing_programmatic_ones(
    tmp_path: Path, home: Path, llm: TestLLM
) -> None:
    agents = tmp_path / ".agents" / "agents"
    agents.mkdir(parents=True)
    (agents / "mine.md").write_text("---\nname: mine\n---\nfrom the file\n", encoding="utf-8")
    (agents / "new.md").write_text("---\nname: fresh\ntools: think\n---\nnew\n", "utf-8")
    register_agent("mine", _agent_named("from python"), "mine")
    assert register_file_agents(tmp_path) == ["fresh"]
    assert get_agent_factory("mine").factory_func(llm).system_prompt == "from python"
    fresh = get_agent_factory("fresh")
    assert fresh.definition.source == (agents / "new.md").as_posix()
    assert [tool.name for tool in fresh.factory_func(llm).tools] == ["think"]
