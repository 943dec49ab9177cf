"""`DelegationVisualizer`: panels titled with the agent's name, for agents and sub-agents."""

from __future__ import annotations

import inspect
import io
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from openhands.sdk import Agent, LocalConversation, Message, Tool
from openhands.sdk.testing import TestLLM
from openhands.tools.delegate import DelegationVisualizer
from openhands.tools.task import TaskManager
from rich.console import Console

pytestmark = [pytest.mark.timeout(60), pytest.mark.usefixtures("isolated_agents")]

Factory = Callable[..., Message]


def printed(console: Console) -> str:
    """Everything `console` printed so far."""
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


def _watched(visualizer: DelegationVisualizer, llm: TestLLM, workspace: Path) -> LocalConversation:
    # Until conversations take `visualizer=`, feed it the way a conversation would.
    conversation = LocalConversation(
        Agent(llm=llm, tools=[]), workspace, callbacks=[visualizer.on_event]
    )
    visualizer.initialize(conversation.state)
    return conversation


def test_every_panel_names_the_agent(
    workspace: Path, console: Console, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    llm = TestLLM.from_messages([tool_call("think", thought="owls first"), reply("Owls it is.")])
    conversation = _watched(DelegationVisualizer(name="Delegator", console=console), llm, workspace)
    conversation.send_message("pick an animal")
    conversation.run()
    conversation.close()
    out = printed(console)
    for title in (
        "Delegator Agent System Prompt",
        "User Message to Delegator Agent",
        "Delegator Agent Action",
        "Delegator Agent Observation",
        "Message from Delegator Agent to User",
    ):
        assert title in out
    assert 'think(thought="owls first")' in out
    assert "Owls it is." in out


def test_without_a_name_the_agent_is_called_agent(
    workspace: Path, console: Console, reply: Callable[[str], Message]
) -> None:
    conversation = _watched(
        DelegationVisualizer(console=console), TestLLM.from_messages([reply("hi")]), workspace
    )
    conversation.send_message("hello")
    conversation.run()
    conversation.close()
    assert "Message from Agent Agent to User" in printed(console)


def test_user_messages_can_be_left_out(
    workspace: Path, console: Console, reply: Callable[[str], Message]
) -> None:
    visualizer = DelegationVisualizer(name="x", skip_user_messages=True, console=console)
    conversation = _watched(visualizer, TestLLM.from_messages([reply("answer")]), workspace)
    conversation.send_message("secret question")
    conversation.run()
    conversation.close()
    out = printed(console)
    assert "secret question" not in out and "answer" in out


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("lodging_expert", "Lodging Expert"),
        ("MainAgent", "Main Agent"),
        ("main_delegator", "Main Delegator"),
        ("Main Agent", "Main Agent"),
        ("code-explorer", "Code Explorer"),
    ],
)
def test_agent_names_are_shown_in_title_case(name: str, shown: str) -> None:
    assert DelegationVisualizer.format_agent_name(name) == shown


def test_a_sub_visualizer_has_the_sub_agents_name_and_the_same_settings(console: Console) -> None:
    parent = DelegationVisualizer(
        name="Delegator", highlight_regex={"owl": "bold"}, skip_user_messages=True, console=console
    )
    child = parent.create_sub_visualizer("lodging")
    assert isinstance(child, DelegationVisualizer)
    assert child.name == "lodging"
    assert child._highlight_patterns == {"owl": "bold"}
    assert child._skip_user_messages is True
    assert child._console is console


def test_highlight_patterns_style_the_text(
    workspace: Path, reply: Callable[[str], Message]
) -> None:
    console = Console(file=io.StringIO(), width=200, force_terminal=True, color_system="standard")
    visualizer = DelegationVisualizer(highlight_regex={"owl": "bold red"}, console=console)
    conversation = _watched(visualizer, TestLLM.from_messages([reply("an owl")]), workspace)
    conversation.send_message("animal?")
    conversation.run()
    conversation.close()
    assert "\x1b[1;31mowl" in printed(console)


def test_a_sub_agent_run_by_the_task_manager_is_shown_under_its_name(
    workspace: Path, console: Console, reply: Callable[[str], Message]
) -> None:
    parent = DelegationVisualizer(name="Delegator", console=console)
    manager = TaskManager(str(workspace), llm=TestLLM.from_messages([reply("three hotels")]))
    record = manager.start(
        "find hotels",
        subagent_type="general-purpose",
        visualizer=parent.create_sub_visualizer("lodging"),
    )
    manager.close()
    assert record.status == "completed"
    out = printed(console)
    assert "Lodging Agent System Prompt" in out
    assert "User Message to Lodging Agent" in out
    assert "Message from Lodging Agent to User" in out and "three hotels" in out


@pytest.mark.skipif(
    "visualizer" not in inspect.signature(LocalConversation.__init__).parameters,
    reason="needs Conversation(visualizer=...) from the conversation layer",
)
def test_the_task_tool_gives_sub_agents_the_parents_sub_visualizers(
    workspace: Path, console: Console, tool_call: Factory, reply: Callable[[str], Message]
) -> None:
    llm = TestLLM.from_messages(
        [
            tool_call("task", prompt="find hotels", description="lodging"),
            reply("hotels"),
            reply("ok"),
        ]
    )
    conversation = LocalConversation(
        Agent(llm=llm, tools=[Tool(name="task")]),
        workspace,
        visualizer=DelegationVisualizer(name="Delegator", console=console),  # type: ignore[call-arg]
    )
    conversation.send_message("plan a trip")
    conversation.run()
    conversation.close()
    out = printed(console)
    assert "Delegator Agent Action" in out and "Lodging Agent System Prompt" in out


def test_importing_the_visualizer_does_not_import_rich() -> None:
    code = "import sys, openhands.tools.delegate; sys.exit('rich' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], timeout=60, check=False).returncode == 0
