"""The task tool inside a real parent LocalConversation that shares its LLM with sub-agents."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from openhands.sdk import Event, LocalConversation, Message, ObservationEvent
from openhands.sdk.testing import TestLLM
from openhands.tools.preset import get_default_agent
from openhands.tools.task import TaskAction, TaskExecutor, TaskManager, TaskObservation

Factory = Callable[..., Message]


def _task_observations(conversation: LocalConversation) -> list[ObservationEvent]:
    return [
        event
        for event in conversation.state.events
        if isinstance(event, ObservationEvent) and event.tool_name == "task"
    ]


def test_task_call_runs_a_sub_agent_on_the_parents_llm(
    workspace: Path, tmp_path: Path, tool_call: Factory, finish: Callable[[str], Message]
) -> None:
    llm = TestLLM.from_messages(
        [
            tool_call("task", prompt="count files", description="count"),
            finish("there are 0 files"),  # the sub-agent's reply
            finish("parent done"),
        ]
    )
    conversation = LocalConversation(
        get_default_agent(llm, enable_task=True),
        workspace,
        persistence_dir=tmp_path / "conversations",
    )
    conversation.send_message("delegate it")
    conversation.run()
    [observation] = _task_observations(conversation)
    assert not observation.is_error
    assert "there are 0 files" in observation.text
    result = observation.observation
    assert isinstance(result, TaskObservation)
    task_id = result.task_id
    assert task_id is not None and task_id in observation.text
    folder = conversation.state.folder
    assert folder is not None
    assert (folder / "subagents" / "task_index.json").exists()
    assert (folder / "subagents" / str(result.conversation_id)).is_dir()
    conversation.close()


def test_task_call_can_resume_an_earlier_task(
    workspace: Path, tool_call: Factory, finish: Callable[[str], Message]
) -> None:
    llm = TestLLM.from_messages([tool_call("task", prompt="pick a number"), finish("I picked 4")])

    def script_resume(event: Event) -> None:
        # The task id is only known once the first task ran: script the resume then.
        if isinstance(event, ObservationEvent) and event.tool_name == "task" and llm.remaining == 0:
            assert isinstance(event.observation, TaskObservation)
            task_id = event.observation.task_id
            llm.add_messages(
                tool_call("task", prompt="which number?", resume=task_id),
                finish("it was 4"),
                finish("parent done"),
            )

    conversation = LocalConversation(
        get_default_agent(llm, enable_task=True), workspace, callbacks=[script_resume]
    )
    conversation.send_message("go")
    conversation.run()
    first, second = _task_observations(conversation)
    assert isinstance(first.observation, TaskObservation)
    assert isinstance(second.observation, TaskObservation)
    assert first.observation.task_id == second.observation.task_id
    assert "it was 4" in second.text
    assert "pick a number" in [message.text for message in llm.calls[3]]
    conversation.close()


def test_parent_without_persistence_writes_no_index(
    workspace: Path, tmp_path: Path, tool_call: Factory, finish: Callable[[str], Message]
) -> None:
    llm = TestLLM.from_messages(
        [tool_call("task", prompt="hi"), finish("sub done"), finish("parent done")]
    )
    conversation = LocalConversation(get_default_agent(llm, enable_task=True), workspace)
    conversation.send_message("go")
    conversation.run()
    conversation.close()
    assert not list(tmp_path.rglob("task_index.json"))
    assert not list(tmp_path.rglob("subagents"))


def test_resuming_an_unknown_task_is_an_error_observation(workspace: Path) -> None:
    executor = TaskExecutor(TaskManager(str(workspace), llm=TestLLM.from_messages([])))
    observation = executor(TaskAction(prompt="more", resume="task_missing"))
    assert observation.is_error
    assert "task_missing" in observation.text


def test_a_call_without_conversation_or_llm_is_an_error_observation(workspace: Path) -> None:
    observation = TaskExecutor(TaskManager(str(workspace)))(TaskAction(prompt="go"))
    assert observation.is_error
    assert "LLM" in observation.text
