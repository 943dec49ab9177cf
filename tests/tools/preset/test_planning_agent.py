"""The planning agent: a scripted run explores read-only and fills in PLAN.md."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from openhands.sdk import ConversationExecutionStatus, LocalConversation, Message, ObservationEvent
from openhands.sdk.testing import TestLLM
from openhands.tools.preset import get_planning_agent, get_planning_tools


def test_the_planning_agent_has_read_only_tools_and_the_plan_editor() -> None:
    agent = get_planning_agent(TestLLM.from_messages([]))
    assert [tool.name for tool in agent.tools] == ["glob", "grep", "planning_file_editor"]
    prompt = agent.system_prompt or ""
    assert "OBJECTIVE" in prompt and "IMPLEMENTATION STEPS" in prompt


def test_a_plan_path_reaches_the_editor() -> None:
    [_, _, editor] = get_planning_tools(plan_path="/tmp/x/PLAN.md")
    assert editor.params == {"plan_path": "/tmp/x/PLAN.md"}


def test_a_scripted_planning_run_writes_the_plan_and_nothing_else(
    workspace: Path, tool_call: Callable[..., Message]
) -> None:
    (workspace / "scraper.py").write_text("def fetch():\n    pass\n", encoding="utf-8")
    llm = TestLLM.from_messages(
        [
            tool_call("glob", pattern="**/*.py"),
            tool_call("grep", pattern="def fetch"),
            tool_call("planning_file_editor", command="view", path="scraper.py"),
            tool_call(
                "planning_file_editor", command="create", path="scraper.py", file_text="oops"
            ),
            tool_call(
                "planning_file_editor",
                command="str_replace",
                path=".agents_tmp/PLAN.md",
                old_str="# 1. OBJECTIVE\n",
                new_str="# 1. OBJECTIVE\nAdd retries to fetch().\n",
            ),
            tool_call("finish", message="Plan written."),
        ]
    )
    conversation = LocalConversation(get_planning_agent(llm), workspace)
    conversation.send_message("Plan retries for the scraper.")
    conversation.run()
    observations = [e for e in conversation.state.events if isinstance(e, ObservationEvent)]
    status = conversation.state.execution_status
    conversation.close()
    assert status == ConversationExecutionStatus.FINISHED
    glob, grep, view, refused, edited, _ = observations
    assert str(workspace / "scraper.py") in glob.text
    assert str(workspace / "scraper.py") in grep.text
    assert "def fetch" in view.text
    assert refused.is_error and not edited.is_error
    assert (workspace / "scraper.py").read_text(encoding="utf-8") == "def fetch():\n    pass\n"
    plan = (workspace / ".agents_tmp" / "PLAN.md").read_text(encoding="utf-8")
    assert "Add retries to fetch()." in plan
