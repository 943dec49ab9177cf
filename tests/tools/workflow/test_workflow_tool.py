"""The workflow tool in real conversations: a script in its own process drives sub-agents."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import psutil
import pytest
from openhands.sdk import (
    LLM,
    Agent,
    LocalConversation,
    Message,
    MessageToolCall,
    ObservationEvent,
    TextContent,
    Tool,
)
from openhands.sdk.agent import AgentBase
from openhands.sdk.llm import LLMResponse
from openhands.sdk.subagent import register_agent
from openhands.sdk.testing import TestLLM
from openhands.sdk.tool import ToolContext, resolve_tool
from openhands.tools.workflow import WorkflowExecutor, WorkflowToolSet
from openhands.tools.workflow import runner as workflow_runner
from pydantic import PrivateAttr

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("isolated_agents")]


class EchoLLM(TestLLM):
    """Answers every run with `ECHO<the last user message>`; counts runs working at once."""

    _meet: threading.Barrier | None = PrivateAttr(default=None)
    _busy: int = PrivateAttr(default=0)
    _most_busy: int = PrivateAttr(default=0)
    _count_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def _complete(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, stream: bool
    ) -> LLMResponse:
        with self._count_lock:
            self._busy += 1
            self._most_busy = max(self._most_busy, self._busy)
        try:
            if self._meet is not None:
                self._meet.wait(timeout=20)
            last = [message for message in messages if message.role == "user"][-1].text
            if "FAIL" in last:
                raise RuntimeError("this sub-agent was told to fail")
            text = f"ECHO<{last}>"
            return LLMResponse(
                message=Message(role="assistant", content=[TextContent(text=text)]),
                cost=0.0,
                prompt_tokens=0,
                completion_tokens=0,
            )
        finally:
            with self._count_lock:
                self._busy -= 1


@pytest.fixture
def echo() -> EchoLLM:
    """The LLM of the registered `echo` sub-agent."""
    llm = EchoLLM()

    def build(parent_llm: LLM) -> AgentBase:
        del parent_llm
        return Agent(llm=llm, tools=[])

    register_agent("echo", build, "Repeats its task.")
    return llm


def _workflow(
    workspace: Path,
    script: str,
    params: dict[str, Any] | None = None,
    **arguments: Any,
) -> ObservationEvent:
    # Built by hand: the workflow action has a `name` field, which tool_call() takes itself.
    call = MessageToolCall(
        id="call_workflow",
        name="workflow",
        arguments=json.dumps({"name": "audit", "script": script, **arguments}),
    )
    llm = TestLLM.from_messages(
        [
            Message(role="assistant", content=[], tool_calls=[call]),
            Message(role="assistant", content=[TextContent(text="done")]),
        ]
    )
    agent = Agent(llm=llm, tools=[Tool(name=WorkflowToolSet.name, params=params or {})])
    conversation = LocalConversation(agent, workspace)
    conversation.send_message("run the audit")
    conversation.run()
    [observation] = [e for e in conversation.state.events if isinstance(e, ObservationEvent)]
    conversation.close()
    return observation


def test_a_map_and_reduce_script_returns_the_reducers_report(
    workspace: Path, echo: EchoLLM
) -> None:
    script = """
async def main(wf):
    found = await wf.map_agents(["sdk", "tools"], "audit {item}", subagent_type="echo")
    return await wf.reduce_agent(found, "merge", subagent_type="echo")
"""
    observation = _workflow(workspace, script)
    assert not observation.is_error
    assert observation.observation.model_dump(mode="json")["status"] == "completed"
    assert observation.text == (
        'ECHO<merge\n\nInput:\n[\n  "ECHO<audit sdk>",\n  "ECHO<audit tools>"\n]>'
    )


def test_sub_agents_work_in_parallel_up_to_max_concurrency(workspace: Path, echo: EchoLLM) -> None:
    echo._meet = threading.Barrier(2)  # two runs must meet, or the barrier breaks
    script = """
async def main(wf):
    return await wf.map_agents([1, 2, 3, 4], "item {item}", subagent_type="echo")
"""
    observation = _workflow(workspace, script, max_concurrency=2)
    assert not observation.is_error, observation.text
    assert json.loads(observation.text) == [f"ECHO<item {n}>" for n in (1, 2, 3, 4)]
    assert echo._most_busy == 2


def test_a_non_string_result_comes_back_as_json(workspace: Path) -> None:
    observation = _workflow(workspace, "async def main(wf):\n    return {'a': [1]}\n")
    assert json.loads(observation.text) == {"a": [1]}


def test_a_failing_sub_agent_fails_the_map_naming_the_item(workspace: Path, echo: EchoLLM) -> None:
    script = """
async def main(wf):
    return await wf.map_agents(["ok", "FAIL"], "{item}", subagent_type="echo")
"""
    observation = _workflow(workspace, script)
    assert observation.is_error
    assert observation.observation.model_dump(mode="json")["status"] == "error"
    assert "map_agents: one or more sub-agents failed" in observation.text
    assert "[item 2]" in observation.text


def test_an_unknown_sub_agent_type_is_reported(workspace: Path) -> None:
    script = "async def main(wf):\n    return await wf.run_agent('x', subagent_type='wizard')\n"
    observation = _workflow(workspace, script)
    assert observation.is_error
    assert "Unknown subagent_type 'wizard'" in observation.text


def test_a_refused_script_never_starts_a_process(workspace: Path) -> None:
    observation = _workflow(workspace, "import os\nasync def main(wf):\n    pass\n")
    assert observation.is_error
    assert "The script was refused: Line 1: workflow scripts may not import" in observation.text


def test_a_script_error_shows_what_the_script_printed(workspace: Path) -> None:
    script = "async def main(wf):\n    print('checkpoint 1')\n    raise ValueError('bad input')\n"
    observation = _workflow(workspace, script)
    assert observation.is_error
    assert "ValueError: bad input" in observation.text
    assert "checkpoint 1" in observation.text


def test_a_workflow_over_its_time_is_stopped_and_its_process_killed(workspace: Path) -> None:
    script = "async def main(wf):\n    while True:\n        pass\n"
    observation = _workflow(workspace, script, params={"timeout": 0.5})
    assert observation.is_error
    assert "timed out after 0.5 s" in observation.text
    runner = str(Path(workflow_runner.__file__))
    runners = [p for p in psutil.Process().children(recursive=True) if runner in p.cmdline()]
    assert runners == []


def test_the_script_runs_in_the_workspace_without_the_servers_secrets(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-secret-of-the-server")
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    # The checks are not the boundary: this script reaches `os` through a coroutine's frame.
    script = """
async def main(wf):
    pending = wf.run_agent("never run")
    runner_globals = pending.cr_frame.f_globals
    pending.close()
    env = runner_globals["os"].environ
    return [runner_globals["os"].getcwd(), env.get("LLM_API_KEY"), env.get("HARMLESS_SETTING")]
"""
    observation = _workflow(workspace, script)
    assert not observation.is_error, observation.text
    assert json.loads(observation.text) == [str(workspace), None, "visible"]


def test_a_long_answer_is_cut_in_the_middle(workspace: Path) -> None:
    script = "async def main(wf):\n    return 'a' * 5000 + 'END'\n"
    observation = _workflow(workspace, script, params={"max_output_chars": 1000})
    assert len(observation.text) <= 1000
    assert observation.text.endswith("END") and "characters truncated" in observation.text


def test_the_executor_needs_a_conversation_with_an_llm(tmp_path: Path) -> None:
    outcome = WorkflowExecutor(str(tmp_path)).run(
        "async def main(wf):\n    return 1\n", max_concurrency=1, conversation=None
    )
    assert not outcome.ok and "needs a conversation with an LLM" in outcome.text


@pytest.mark.parametrize(
    "name", ["workflow", "WorkflowTool", "workflow_tool_set", "WorkflowToolSet"]
)
def test_the_tool_resolves_by_every_name(name: str, tmp_path: Path) -> None:
    [tool] = resolve_tool(Tool(name=name), ToolContext(working_dir=str(tmp_path)))
    function = tool.to_openai_tool()["function"]
    assert function["name"] == "workflow"
    assert set(function["parameters"]["properties"]) == {
        "name",
        "script",
        "max_concurrency",
        "summary",
    }
    assert "async def main(wf)" in function["description"]
    assert "- **general-purpose**:" in function["description"]


def test_workflow_tool_set_has_the_reference_name() -> None:
    assert WorkflowToolSet.name == "workflow_tool_set"


@pytest.mark.parametrize(
    "params", [{"timeout": -1}, {"max_iterations": 0}, {"max_output_chars": -1}, {"x": 1}]
)
def test_bad_params_are_refused(params: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Bad workflow params"):
        resolve_tool(Tool(name="workflow", params=params), ToolContext(str(tmp_path)))
