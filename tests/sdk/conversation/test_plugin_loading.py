"""`LocalConversation.load_plugin`: a plugin loaded into a conversation that exists gives it
the plugin's MCP tools, triggered skills and hooks from the next message on, and a reopened
conversation keeps them; a plugin that cannot be read changes nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from openhands.sdk import Agent
from openhands.sdk.conversation import LocalConversation
from openhands.sdk.event import ObservationEvent
from openhands.sdk.llm import Message, MessageToolCall, TextContent
from openhands.sdk.plugin.fetch import PluginFetchError
from openhands.sdk.testing import TestLLM

TOOLS_SERVER = Path(__file__).parents[1] / "mcp" / "servers" / "tools_server.py"


def _plugin(root: Path) -> Path:
    folder = root / "adder"
    (folder / ".plugin").mkdir(parents=True)
    (folder / ".plugin" / "plugin.json").write_text(json.dumps({"name": "adder"}))
    (folder / "skills" / "sums").mkdir(parents=True)
    (folder / "skills" / "sums" / "SKILL.md").write_text(
        "---\nname: sums\ndescription: Adds numbers.\ntriggers: [add]\n---\nUSE-THE-ADD-TOOL\n"
    )
    (folder / "hooks").mkdir()
    hook = {"type": "command", "command": 'echo "$OPENHANDS_TOOL_NAME" >> hook.log'}
    (folder / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [hook]}]}})
    )
    servers = {"tools": {"command": sys.executable, "args": [str(TOOLS_SERVER)]}}
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    return folder


def _add_then_answer() -> list[Message]:
    call = MessageToolCall(id="c1", name="add", arguments=json.dumps({"a": 2, "b": 40}))
    return [
        Message(role="assistant", tool_calls=[call]),
        Message(role="assistant", content=[TextContent(text="42")]),
    ]


@pytest.mark.slow
def test_a_loaded_plugin_works_from_the_next_run_and_after_a_reopen(
    tmp_path: Path, workspace_dir: Path
) -> None:
    folder = _plugin(tmp_path)
    persistence = tmp_path / "conversations"
    llm = TestLLM.from_messages(_add_then_answer())
    conversation = LocalConversation(
        Agent(llm=llm, tools=[]), workspace_dir, persistence_dir=persistence
    )
    try:
        before = set(conversation.tools)
        conversation.load_plugin(str(folder))
        conversation.send_message("add 2 and 40")
        conversation.run()
    finally:
        conversation.close()

    [result] = [e.observation for e in conversation.state.events if isinstance(e, ObservationEvent)]
    assert "add" not in before and result.text == "42"
    assert (workspace_dir / "hook.log").read_text().split() == ["add"]
    assert any("USE-THE-ADD-TOOL" in m.text for m in llm.calls[0])  # the triggered skill
    reopened = LocalConversation(  # the stored agent: the plugin's MCP server, and its hooks
        None,
        workspace_dir,
        persistence_dir=persistence,
        conversation_id=conversation.id,
    )
    try:
        assert "add" in reopened.tools
        assert reopened.state.hook_config is not None
    finally:
        reopened.close()


def test_a_plugin_that_cannot_be_read_changes_nothing(tmp_path: Path, workspace_dir: Path) -> None:
    broken = tmp_path / "broken"
    (broken / "hooks").mkdir(parents=True)
    (broken / "hooks" / "hooks.json").write_text("{not json")
    conversation = LocalConversation(Agent(llm=TestLLM.from_messages([]), tools=[]), workspace_dir)
    try:
        agent_before = conversation.state.agent.model_dump_json()
        with pytest.raises(Exception, match="hooks"):
            conversation.load_plugin(str(broken))
        with pytest.raises(PluginFetchError, match="not a folder"):
            conversation.load_plugin(str(tmp_path / "missing"))
        assert conversation.state.agent.model_dump_json() == agent_before
    finally:
        conversation.close()
