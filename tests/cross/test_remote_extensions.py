"""Client-defined tools and plugins through a real agent server, driven by RemoteConversation:
the run stops at a call the client must answer, the client answers, the run goes on (also
across a server restart); plugin skills and hooks reach the server-side agent."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from live_server import LiveServer, Models, make_llm
from openhands.sdk import Agent, Conversation, Event
from openhands.sdk.event import ActionEvent, ObservationEvent
from openhands.sdk.plugin import PluginSource
from openhands.sdk.remote import RemoteConversation, RemoteWorkspace
from openhands.sdk.testing import FakeOpenAIServer
from openhands.sdk.testing.fake_reply import FakeReply
from openhands.sdk.tool import ClientToolSpec

NOTIFY = ClientToolSpec(
    name="show_notification",
    description="Show a banner in the UI.",
    parameters={
        "type": "object",
        "properties": {"message": {"type": "string"}, "level": {"enum": ["info", "error"]}},
        "required": ["message", "level"],
    },
)
ASK = ClientToolSpec(
    name="ask_user",
    description="Ask the user a question in the UI and get the answer.",
    parameters={"type": "object", "properties": {"question": {"type": "string"}}},
    wait_for_result=True,
)


def _observations(conversation: RemoteConversation) -> dict[str, str]:
    return {
        e.tool_name: e.observation.text
        for e in conversation.state.events
        if isinstance(e, ObservationEvent)
    }


def test_client_tools_stop_the_run_until_the_client_answers(
    fake_llm: FakeOpenAIServer, models: Models, remote_workspace: RemoteWorkspace
) -> None:
    fake_llm.script(
        models.agent,
        [
            FakeReply.tool_call("show_notification", {"message": "hi", "level": "info"}),
            FakeReply.tool_call("ask_user", {"question": "Which color?"}),
            FakeReply.text("You chose blue."),
        ],
    )
    seen: list[str] = []

    def on_event(event: Event) -> None:
        if isinstance(event, ActionEvent) and event.tool_name in ("show_notification", "ask_user"):
            seen.append(event.tool_name)

    agent = Agent(llm=make_llm(fake_llm, models.agent), tools=[])
    conversation = Conversation(
        agent, workspace=remote_workspace, callbacks=[on_event], client_tools=[NOTIFY, ASK]
    )
    assert isinstance(conversation, RemoteConversation)
    try:
        conversation.send_message("greet me and ask for a color")
        conversation.run()

        assert conversation.state.execution_status.value == "paused"
        assert seen == ["show_notification", "ask_user"]
        assert _observations(conversation) == {
            "show_notification": "Tool call dispatched to client."
        }
        [ask] = [e for e in conversation.state.events if isinstance(e, ActionEvent)][-1:]

        conversation.respond_to_client_tool(ask.tool_call_id, "blue", run=True)

        assert conversation.state.execution_status.value == "finished"
        assert _observations(conversation)["ask_user"] == "blue"
        last_request = fake_llm.requests_for(models.agent)[-1]
        assert '"blue"' in json.dumps(last_request["messages"][-1])
    finally:
        conversation.close()


def test_bad_client_tools_and_answers_are_4xx_naming_the_problem(
    server: LiveServer, fake_llm: FakeOpenAIServer, models: Models, tmp_path: Path
) -> None:
    agent = Agent(llm=make_llm(fake_llm, models.agent), tools=[])
    body = {
        "agent": json.loads(agent.model_dump_json(context={"expose_secrets": True})),
        "workspace": {"kind": "LocalWorkspace", "working_dir": str(tmp_path)},
        "client_tools": [
            {"name": "terminal", "description": "clash", "parameters": {"type": "object"}}
        ],
    }
    clash = httpx.post(f"{server.url}/api/conversations", json=body, timeout=30)
    body["client_tools"] = [{"name": "x", "description": "d", "parameters": {"type": "string"}}]
    not_object = httpx.post(f"{server.url}/api/conversations", json=body, timeout=30)
    body["client_tools"] = []
    created = httpx.post(f"{server.url}/api/conversations", json=body, timeout=30).json()
    answer = httpx.post(
        f"{server.url}/api/conversations/{created['id']}/client_tools/respond",
        json={"tool_call_id": "nope", "content": "x"},
        timeout=30,
    )

    assert clash.status_code == 422 and "client_tools" in clash.text and "terminal" in clash.text
    assert not_object.status_code == 422 and "parameters" in not_object.text
    assert answer.status_code == 404 and "nope" in answer.text


def test_a_waiting_client_call_survives_a_server_restart(
    fake_llm: FakeOpenAIServer, models: Models, tmp_path: Path
) -> None:
    fake_llm.script(
        models.agent,
        [FakeReply.tool_call("ask_user", {"question": "name?"}), FakeReply.text("Hello, Ada.")],
    )
    (tmp_path / "server").mkdir()
    live = LiveServer(tmp_path / "server").start()
    try:
        workspace = RemoteWorkspace(host=live.url, working_dir=str(tmp_path / "project"))
        agent = Agent(llm=make_llm(fake_llm, models.agent), tools=[])
        first = RemoteConversation(agent, workspace, client_tools=[ASK])
        first.send_message("ask my name")
        first.run()
        [ask] = [e for e in first.state.events if isinstance(e, ActionEvent)]
        conversation_id = first.id
        first.close()
        live.stop()
        live.start()

        again = RemoteConversation(agent, workspace, conversation_id=conversation_id)
        try:
            again.respond_to_client_tool(ask.tool_call_id, "Ada", run=True)
            assert again.state.execution_status.value == "finished"
            assert _observations(again)["ask_user"] == "Ada"
        finally:
            again.close()
    finally:
        live.stop()


def test_a_plugin_given_at_create_brings_its_skills_and_hooks(
    fake_llm: FakeOpenAIServer, models: Models, remote_workspace: RemoteWorkspace, tmp_path: Path
) -> None:
    plugin = tmp_path / "lint-plugin"
    (plugin / ".plugin").mkdir(parents=True)
    (plugin / ".plugin" / "plugin.json").write_text(json.dumps({"name": "lint", "version": "2.0"}))
    (plugin / "skills" / "ruff-tips").mkdir(parents=True)
    (plugin / "skills" / "ruff-tips" / "SKILL.md").write_text(
        "---\nname: ruff-tips\ndescription: How to lint with ruff.\n---\nRun ruff check.\n"
    )
    (plugin / "hooks").mkdir()
    # In the workspace: the hook runs in the server's sandbox, where only it is writable.
    marker = Path(remote_workspace.working_dir) / "hook-ran.txt"
    (plugin / "hooks" / "hooks.json").write_text(
        json.dumps(
            {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": f"touch {marker}"}]}]}}
        )
    )
    fake_llm.script(models.agent, [FakeReply.text("done")])
    agent = Agent(llm=make_llm(fake_llm, models.agent), tools=[])
    conversation = RemoteConversation(
        agent, remote_workspace, plugins=[PluginSource(source=str(plugin))]
    )
    try:
        conversation.send_message("lint please")
        conversation.run()
    finally:
        conversation.close()

    [request] = fake_llm.requests_for(models.agent)
    system = json.dumps(request["messages"][0])
    assert "ruff-tips" in system and "How to lint with ruff." in system
    assert "Run ruff check." not in system  # the body is read on use, not put in the prompt
    assert marker.exists()  # the plugin's Stop hook ran on the server


@pytest.mark.parametrize("source", ["/no/such/plugin", "not a source"])
def test_a_plugin_that_cannot_be_fetched_is_a_422(
    server: LiveServer, fake_llm: FakeOpenAIServer, models: Models, tmp_path: Path, source: str
) -> None:
    agent = Agent(llm=make_llm(fake_llm, models.agent), tools=[])
    response = httpx.post(
        f"{server.url}/api/conversations",
        json={
            "agent": json.loads(agent.model_dump_json(context={"expose_secrets": True})),
            "workspace": {"kind": "LocalWorkspace", "working_dir": str(tmp_path)},
            "plugins": [{"source": source}],
        },
        timeout=30,
    )

    assert response.status_code == 422, response.text
    assert "plugins" in response.text
