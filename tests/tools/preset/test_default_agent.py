"""The default agent: its tools, and a full scripted run that really edits and executes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from openhands.sdk import (
    ConversationExecutionStatus,
    LocalConversation,
    Message,
    ObservationEvent,
)
from openhands.sdk.testing import TestLLM
from openhands.tools.preset import get_default_agent, get_default_tools
from openhands.tools.terminal import TerminalObservation


def test_default_agent_has_the_reference_tools_with_the_browser() -> None:
    agent = get_default_agent(TestLLM.from_messages([]))
    names = [tool.name for tool in agent.tools]
    assert names == ["terminal", "file_editor", "task_tracker", "browser_tool_set"]


def test_task_can_be_added_and_the_browser_left_out() -> None:
    agent = get_default_agent(TestLLM.from_messages([]), enable_task=True, enable_browser=False)
    assert [tool.name for tool in agent.tools] == [
        "terminal",
        "file_editor",
        "task_tracker",
        "task",
    ]
    specs = get_default_tools(enable_browser=False, enable_sub_agents=True)
    assert [tool.name for tool in specs] == ["terminal", "file_editor", "task_tracker", "task"]


def test_scripted_run_creates_a_file_and_runs_it(
    workspace: Path, tmp_path: Path, tool_call: Callable[..., Message]
) -> None:
    llm = TestLLM.from_messages(
        [
            tool_call(
                "file_editor", command="create", path="hello.py", file_text="print('hi' * 2)\n"
            ),
            tool_call("terminal", command="python3 hello.py > out.txt && cat out.txt"),
            tool_call("finish", message="wrote and ran hello.py"),
        ]
    )
    conversation = LocalConversation(
        get_default_agent(llm, cli_mode=True),
        workspace,
        persistence_dir=tmp_path / "conversations",
    )
    conversation.send_message("write hello.py and run it")
    conversation.run()
    observations = {
        event.tool_name: event
        for event in conversation.state.events
        if isinstance(event, ObservationEvent)
    }
    status = conversation.state.execution_status
    conversation.close()
    assert status == ConversationExecutionStatus.FINISHED
    assert (workspace / "hello.py").read_text() == "print('hi' * 2)\n"
    assert (workspace / "out.txt").read_text() == "hihi\n"
    terminal = observations["terminal"]
    assert "hihi" in terminal.text
    assert isinstance(terminal.observation, TerminalObservation)
    assert terminal.observation.exit_code == 0


def test_reference_sdk_keywords_are_accepted() -> None:
    agent = get_default_agent(llm=TestLLM.from_messages([]), cli_mode=True)
    assert [tool.name for tool in agent.tools] == ["terminal", "file_editor", "task_tracker"]
