"""The default agent's tool schemas go through litellm to an OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk import LLM, ConversationExecutionStatus, LocalConversation
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from openhands.tools.preset import get_default_agent
from pydantic import SecretStr


def test_scripted_http_run_uses_terminal_and_file_editor(workspace: Path) -> None:
    with FakeOpenAIServer() as server:
        server.script(
            "agent",
            [
                FakeReply.tool_call(
                    "file_editor", {"command": "create", "path": "n.txt", "file_text": "41\n"}
                ),
                FakeReply.tool_call("terminal", {"command": "echo $(( $(cat n.txt) + 1 ))"}),
                FakeReply.tool_call("finish", {"message": "computed 42"}),
            ],
        )
        llm = LLM(
            model="openai/agent",
            base_url=server.base_url,
            api_key=SecretStr("test"),
            num_retries=0,
        )
        conversation = LocalConversation(get_default_agent(llm), workspace)
        conversation.send_message("add one")
        conversation.run()
        status = conversation.state.execution_status
        conversation.close()
        requests = server.requests
    assert status == ConversationExecutionStatus.FINISHED
    offered = {tool["function"]["name"] for tool in requests[0]["tools"]}
    assert {"terminal", "file_editor", "task_tracker", "finish"} <= offered
    tool_answers = [m for m in requests[2]["messages"] if m["role"] == "tool"]
    assert "42" in str(tool_answers[-1]["content"])
