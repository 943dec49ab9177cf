"""The task tracker in real conversations: plan, view, and the plan kept in TASKS.json."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import openhands.tools
import pytest
from openhands.sdk import (
    Agent,
    AgentErrorEvent,
    LocalConversation,
    Message,
    ObservationEvent,
    Tool,
)
from openhands.sdk.testing import TestLLM
from openhands.sdk.tool import ToolContext, resolve_tool
from openhands.tools.task_tracker import (
    TASKS_FILE,
    TaskTrackerAction,
    TaskTrackerExecutor,
    TaskTrackerTool,
)

Factory = Callable[..., Message]

PLAN = [
    {"title": "Write the parser", "notes": "YAML subset", "status": "done"},
    {"title": "Test it", "status": "in_progress"},
    {"title": "Document it"},
]


def _agent(llm: TestLLM) -> Agent:
    return Agent(llm=llm, tools=[Tool(name=TaskTrackerTool.name)])


def _observations(conversation: LocalConversation) -> list[ObservationEvent]:
    return [e for e in conversation.state.events if isinstance(e, ObservationEvent)]


def _run(conversation: LocalConversation) -> list[ObservationEvent]:
    conversation.send_message("plan it")
    conversation.run()
    return _observations(conversation)


def test_plan_then_view_shows_the_list_with_status_icons(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    llm = TestLLM.from_messages(
        [
            tool_call("task_tracker", command="plan", task_list=PLAN),
            tool_call("task_tracker", command="view"),
            reply("planned"),
        ]
    )
    conversation = LocalConversation(_agent(llm), workspace)
    plan, view = _run(conversation)
    conversation.close()
    assert plan.text == "Task list has been updated with 3 item(s)."
    assert view.text == (
        "# Task List\n\n"
        "1. ✅ Write the parser\n   YAML subset\n\n"
        "2. 🔄 Test it\n\n"
        "3. ⏳ Document it"
    )
    assert [item["status"] for item in view.observation.model_dump(mode="json")["task_list"]] == [
        "done",
        "in_progress",
        "todo",
    ]
    assert view.observation.model_dump(mode="json")["command"] == "view"


def test_viewing_before_planning_says_there_is_no_list(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    llm = TestLLM.from_messages([tool_call("task_tracker", command="view"), reply("ok")])
    conversation = LocalConversation(_agent(llm), workspace)
    [view] = _run(conversation)
    conversation.close()
    assert view.text == 'No task list found. Use the "plan" command to create one.'
    assert not view.is_error


def test_a_persisted_conversation_saves_the_plan_and_reloads_it(
    workspace: Path,
    persistence_dir: Path,
    tool_call: Factory,
    reply: Callable[[str], Message],
) -> None:
    first = TestLLM.from_messages(
        [tool_call("task_tracker", command="plan", task_list=PLAN), reply("ok")]
    )
    conversation = LocalConversation(_agent(first), workspace, persistence_dir=persistence_dir)
    _run(conversation)
    conversation.close()
    folder = conversation.state.folder
    assert folder is not None
    saved = json.loads((folder / TASKS_FILE).read_text(encoding="utf-8"))
    assert [item["title"] for item in saved] == [item["title"] for item in PLAN]
    assert not (workspace / TASKS_FILE).exists()

    second = TestLLM.from_messages([tool_call("task_tracker", command="view"), reply("ok")])
    reopened = LocalConversation(
        _agent(second), workspace, persistence_dir=persistence_dir, conversation_id=conversation.id
    )
    reopened.send_message("where are we?")
    reopened.run()
    view = _observations(reopened)[-1]
    reopened.close()
    assert "1. ✅ Write the parser" in view.text
    assert "3. ⏳ Document it" in view.text


def test_an_unpersisted_conversation_writes_no_file(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    llm = TestLLM.from_messages(
        [tool_call("task_tracker", command="plan", task_list=PLAN), reply("ok")]
    )
    conversation = LocalConversation(_agent(llm), workspace)
    _run(conversation)
    conversation.close()
    assert list(workspace.iterdir()) == []


def test_a_bad_status_is_refused_and_the_agent_is_told(
    workspace: Path, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    bad = [{"title": "x", "status": "blocked"}]
    llm = TestLLM.from_messages(
        [tool_call("task_tracker", command="plan", task_list=bad), reply("ok")]
    )
    conversation = LocalConversation(_agent(llm), workspace)
    conversation.send_message("plan")
    conversation.run()
    errors = [e for e in conversation.state.events if isinstance(e, AgentErrorEvent)]
    conversation.close()
    assert len(errors) == 1 and "status" in errors[0].error


def test_a_corrupt_saved_list_is_logged_and_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / TASKS_FILE).write_text('[{"title": 3}', encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        executor = TaskTrackerExecutor(save_dir=tmp_path)
    assert executor.tasks == []
    assert TASKS_FILE in caplog.text


def test_a_refused_save_keeps_the_list_and_says_so(tmp_path: Path) -> None:
    (tmp_path / TASKS_FILE).mkdir()  # the file cannot be replaced: a folder has its name
    executor = TaskTrackerExecutor(save_dir=tmp_path)
    observation = executor(TaskTrackerAction.model_validate({"command": "plan", "task_list": PLAN}))
    assert "saving it failed" in observation.text
    assert not observation.is_error
    assert [task.title for task in executor.tasks] == [item["title"] for item in PLAN]


@pytest.mark.parametrize("name", ["task_tracker", "TaskTrackerTool"])
def test_the_tool_resolves_by_name(name: str, tmp_path: Path) -> None:
    [tool] = resolve_tool(Tool(name=name), ToolContext(working_dir=str(tmp_path)))
    assert tool.name == "task_tracker"
    schema = tool.to_openai_tool()["function"]["parameters"]
    assert set(schema["properties"]) == {"command", "task_list", "summary"}


def test_params_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="takes no params"):
        resolve_tool(Tool(name="task_tracker", params={"x": 1}), ToolContext(str(tmp_path)))


def test_the_tool_is_exported_from_the_tools_package() -> None:
    assert openhands.tools.TaskTrackerTool is TaskTrackerTool
