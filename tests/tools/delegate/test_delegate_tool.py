"""The delegate tool in real conversations: named sub-agents, parallel tasks, clear refusals."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk import LLM, Agent, LocalConversation, Message, ObservationEvent, Tool
from openhands.sdk.agent import AgentBase
from openhands.sdk.llm import LLMResponse
from openhands.sdk.subagent import register_agent
from openhands.sdk.testing import TestLLM
from openhands.sdk.tool import ToolContext, resolve_tool
from openhands.tools.delegate import DelegateTool
from pydantic import PrivateAttr

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("isolated_agents")]

Factory = Callable[..., Message]


class MeetingLLM(TestLLM):
    """A scripted LLM whose every answer waits until all sub-agents are answering at once."""

    _barrier: threading.Barrier | None = PrivateAttr(default=None)

    @classmethod
    def meeting(cls, barrier: threading.Barrier, *replies: Message) -> MeetingLLM:
        """An LLM answering `replies` in order, each once every party reached `barrier`."""
        llm = cls()
        llm.add_messages(*replies)
        llm._barrier = barrier
        return llm

    def _complete(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, stream: bool
    ) -> LLMResponse:
        assert self._barrier is not None
        self._barrier.wait(timeout=20)  # BrokenBarrierError if the sub-agents ran one by one
        return super()._complete(messages, tools, stream)


def _own_llm_agent(llm_for_agent: LLM) -> Callable[[LLM], AgentBase]:
    """A factory that ignores the parent's LLM, so each sub-agent follows its own script."""

    def build(llm: LLM) -> AgentBase:
        del llm
        return Agent(llm=llm_for_agent, tools=[])

    return build


def _run(
    workspace: Path, llm: TestLLM, params: dict[str, Any] | None = None, **kwargs: Any
) -> list[ObservationEvent]:
    agent = Agent(llm=llm, tools=[Tool(name="delegate", params=params or {})])
    conversation = LocalConversation(agent, workspace, **kwargs)
    conversation.send_message("plan a trip")
    conversation.run()
    observations = [e for e in conversation.state.events if isinstance(e, ObservationEvent)]
    conversation.close()
    return observations


def test_spawned_sub_agents_work_on_their_tasks_at_the_same_time(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    barrier = threading.Barrier(2)
    lodging = MeetingLLM.meeting(barrier, reply("Stay in Covent Garden."))
    activities = MeetingLLM.meeting(barrier, reply("See the Tower."))
    register_agent("lodging_planner", _own_llm_agent(lodging), "Finds lodging.")
    register_agent("activities_planner", _own_llm_agent(activities), "Plans days.")
    llm = TestLLM.from_messages(
        [
            tool_call(
                "delegate",
                command="spawn",
                ids=["lodging", "activities"],
                agent_types=["lodging_planner", "activities_planner"],
            ),
            tool_call(
                "delegate",
                command="delegate",
                tasks={"lodging": "Where to stay?", "activities": "What to see?"},
            ),
            reply("done"),
        ]
    )
    spawn, delegate = _run(workspace, llm)
    assert spawn.text == (
        "Successfully spawned 2 sub-agent(s): lodging (lodging_planner), "
        "activities (activities_planner)"
    )
    assert delegate.text == (
        "Completed delegation of 2 task(s)\n\nResults:\n"
        "1. Agent lodging: Stay in Covent Garden.\n"
        "2. Agent activities: See the Tower."
    )
    assert delegate.observation.model_dump(mode="json")["results"] == {
        "lodging": "Stay in Covent Garden.",
        "activities": "See the Tower.",
    }
    assert not delegate.is_error


def test_a_sub_agent_remembers_its_earlier_task(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    expert = TestLLM.from_messages([reply("Stay in Soho."), reply("Covent Garden is pricey.")])
    register_agent("lodging_planner", _own_llm_agent(expert), "Finds lodging.")
    llm = TestLLM.from_messages(
        [
            tool_call(
                "delegate", command="spawn", ids=["lodging"], agent_types=["lodging_planner"]
            ),
            tool_call("delegate", command="delegate", tasks={"lodging": "Where to stay?"}),
            tool_call("delegate", command="delegate", tasks={"lodging": "And Covent Garden?"}),
            reply("done"),
        ]
    )
    *_, second = _run(workspace, llm)
    assert "Covent Garden is pricey." in second.text
    texts = [message.text for message in expert.calls[1]]
    assert "Where to stay?" in texts and "Stay in Soho." in texts


def test_respawning_an_id_starts_a_fresh_sub_agent(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    expert = TestLLM.from_messages([reply("first answer"), reply("second answer")])
    register_agent("expert", _own_llm_agent(expert), "An expert.")
    llm = TestLLM.from_messages(
        [
            tool_call("delegate", command="spawn", ids=["a"], agent_types=["expert"]),
            tool_call("delegate", command="delegate", tasks={"a": "one"}),
            tool_call("delegate", command="spawn", ids=["a"], agent_types=["expert"]),
            tool_call("delegate", command="delegate", tasks={"a": "two"}),
            reply("done"),
        ]
    )
    _run(workspace, llm)
    assert "one" not in [message.text for message in expert.calls[1]]


def test_delegated_sub_agents_persist_under_the_parents_folder(
    workspace: Path, persistence_dir: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    llm = TestLLM.from_messages(
        [
            tool_call("delegate", command="spawn", ids=["helper"]),
            tool_call("delegate", command="delegate", tasks={"helper": "say hi"}),
            reply("hi"),  # the general-purpose sub-agent, on the parent's LLM
            reply("done"),
        ]
    )
    agent = Agent(llm=llm, tools=[Tool(name="delegate")])
    conversation = LocalConversation(agent, workspace, persistence_dir=persistence_dir)
    conversation.send_message("go")
    conversation.run()
    folder = conversation.state.folder
    conversation.close()
    assert folder is not None
    assert (folder / "subagents" / "task_index.json").is_file()


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"command": "spawn"}, "`spawn` needs `ids`"),
        ({"command": "spawn", "ids": ["a", "a"]}, "`ids` must be distinct"),
        (
            {"command": "spawn", "ids": ["a"], "agent_types": ["x", "y"]},
            "agent_types has 2 entries but ids only 1",
        ),
        (
            {"command": "spawn", "ids": ["a"], "agent_types": ["wizard"]},
            "Unknown subagent_type 'wizard'",
        ),
        ({"command": "spawn", "ids": ["a", "b", "c"]}, "at most 2 may"),
        ({"command": "delegate"}, "`delegate` needs `tasks`"),
        ({"command": "delegate", "tasks": {"ghost": "boo"}}, "No sub-agent named ghost"),
    ],
)
def test_mistakes_come_back_as_error_observations(
    workspace: Path,
    tool_call: Factory,
    reply: Callable[[str], Message],
    arguments: dict[str, Any],
    says: str,
) -> None:
    llm = TestLLM.from_messages([tool_call("delegate", **arguments), reply("ok")])
    [observation] = _run(workspace, llm, params={"max_children": 2})
    assert observation.is_error
    assert says in observation.text


def test_a_failing_sub_agent_is_reported_next_to_the_others(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    good = TestLLM.from_messages([reply("fine")])
    broken = TestLLM.from_messages([])  # runs out at once: its run fails
    register_agent("good", _own_llm_agent(good), "works")
    register_agent("broken", _own_llm_agent(broken), "fails")
    llm = TestLLM.from_messages(
        [
            tool_call("delegate", command="spawn", ids=["g", "b"], agent_types=["good", "broken"]),
            tool_call("delegate", command="delegate", tasks={"g": "go", "b": "go"}),
            reply("done"),
        ]
    )
    _, delegate = _run(workspace, llm)
    assert "with 1 error(s)" in delegate.text
    assert "1. Agent g: fine" in delegate.text
    assert "2. Agent b ERROR:" in delegate.text
    assert not delegate.is_error


@pytest.mark.parametrize("name", ["delegate", "DelegateTool"])
def test_the_tool_resolves_by_name_and_lists_agent_types(name: str, tmp_path: Path) -> None:
    register_agent("zoologist", _own_llm_agent(TestLLM.from_messages([])), "Knows animals.")
    [tool] = resolve_tool(Tool(name=name), ToolContext(working_dir=str(tmp_path)))
    assert isinstance(tool, DelegateTool)
    function = tool.to_openai_tool()["function"]
    assert set(function["parameters"]["properties"]) == {
        "command",
        "ids",
        "agent_types",
        "tasks",
        "summary",
    }
    assert "- **zoologist**: Knows animals." in function["description"]
    assert str(tmp_path) in function["description"]


@pytest.mark.parametrize("params", [{"max_children": 0}, {"max_iterations": 0}, {"depth": 1}])
def test_bad_params_are_refused(params: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Bad delegate params"):
        resolve_tool(Tool(name="delegate", params=params), ToolContext(str(tmp_path)))
