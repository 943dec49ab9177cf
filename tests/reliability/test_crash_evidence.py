"""A process killed (SIGKILL) mid-run: reopening records the interruption and goes on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from openhands.sdk import (
    Agent,
    ConversationExecutionStatus,
    LocalConversation,
    Message,
    TextContent,
)
from openhands.sdk.conversation import load_conversation_summary
from openhands.sdk.conversation.event_log import EVENTS_FILE
from openhands.sdk.conversation.recording import RUN_LOST
from openhands.sdk.event import ConversationErrorEvent
from openhands.sdk.testing import TestLLM

Status = ConversationExecutionStatus

SCRIPT = """
import sys, time, uuid
from openhands.sdk import Action, Agent, LocalConversation, Message, MessageToolCall
from openhands.sdk import Observation, Tool, ToolDefinition, register_tool
from openhands.sdk.testing import TestLLM

class NapAction(Action):
    seconds: float = 60

class NapTool(ToolDefinition):
    description = "Sleep."
    action_type = NapAction

    def __call__(self, action, conversation=None):
        time.sleep(action.seconds)
        return Observation(content="rested")

register_tool("nap", NapTool)
call = Message(role="assistant", tool_calls=[MessageToolCall(id="n1", name="nap", arguments="{}")])
conversation = LocalConversation(
    Agent(llm=TestLLM.from_messages([call]), tools=[Tool(name="nap")]),
    sys.argv[1],
    persistence_dir=sys.argv[2],
    conversation_id=uuid.UUID(sys.argv[3]),
)
conversation.send_message("take a long nap")
conversation.run()
"""


def _wait_for_tool_call(events_file: Path, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, "the conversation process ended early"
        if events_file.exists() and '"kind":"ActionEvent"' in events_file.read_text():
            return
        time.sleep(0.05)
    raise AssertionError("the agent never called its tool")


def test_a_conversation_killed_mid_run_reopens_as_interrupted(tmp_path: Path) -> None:
    conversations, workspace = tmp_path / "conversations", tmp_path / "work"
    conversation_id = uuid.uuid4()
    script = tmp_path / "nap.py"
    script.write_text(SCRIPT)
    process = subprocess.Popen(
        [sys.executable, str(script), str(workspace), str(conversations), str(conversation_id)]
    )
    try:
        _wait_for_tool_call(conversations / conversation_id.hex / EVENTS_FILE, process)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)

    summary = load_conversation_summary(conversations, conversation_id)
    assert summary is not None and summary.execution_status == Status.RUNNING

    answer = Message(role="assistant", content=[TextContent(text="awake again")])
    reopened = LocalConversation(
        Agent(llm=TestLLM.from_messages([answer])),
        persistence_dir=conversations,
        conversation_id=conversation_id,
    )
    try:
        assert reopened.state.execution_status == Status.ERROR
        error = reopened.state.events[-2]
        assert isinstance(error, ConversationErrorEvent) and error.code == RUN_LOST
        reopened.send_message("wake up")
        reopened.run()
        assert reopened.state.execution_status == Status.FINISHED
    finally:
        reopened.close()
    lines = (conversations / conversation_id.hex / EVENTS_FILE).read_text().splitlines()
    assert all(json.loads(line)["kind"] for line in lines)
