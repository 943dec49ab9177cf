"""RemoteConversation errors name the fix: session key, unknown conversation, no server."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import httpx
import pytest
from agent_server.harness import HeldReplies
from live_server import LiveServer, Models
from openhands.sdk import Agent
from openhands.sdk.conversation import ConversationAlreadyRunningError
from openhands.sdk.remote import (
    RemoteAuthenticationError,
    RemoteConnectionError,
    RemoteConversation,
    RemoteConversationNotFoundError,
    RemoteRequestError,
    RemoteWorkspace,
)
from openhands.sdk.remote.client import RemoteClient
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from ports import free_port
from pydantic import SecretStr
from waits import EVENT_WAIT

KEY = "s3cret-key"


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server that requires X-Session-API-Key."""
    live = LiveServer(tmp_path_factory.mktemp("keyed"), api_keys=KEY).start()
    yield live
    live.stop()


def test_missing_key_names_the_header_and_the_setting(
    agent: Agent, keyed_server: LiveServer
) -> None:
    with pytest.raises(RemoteAuthenticationError) as caught:
        RemoteConversation(agent, RemoteWorkspace(host=keyed_server.url))
    message = str(caught.value)
    assert "X-Session-API-Key" in message and "RemoteWorkspace(api_key=...)" in message
    assert caught.value.status_code == 401


def test_wrong_key_is_rejected(agent: Agent, keyed_server: LiveServer) -> None:
    workspace = RemoteWorkspace(host=keyed_server.url, api_key=SecretStr("wrong"))
    with pytest.raises(RemoteAuthenticationError, match="rejected the session API key"):
        RemoteConversation(agent, workspace)


def test_right_key_runs_over_rest_and_socket(
    agent: Agent, keyed_server: LiveServer, fake_llm: FakeOpenAIServer
) -> None:
    fake_llm.script(agent.llm.model.removeprefix("openai/"), [FakeReply.text("authorized")])
    workspace = RemoteWorkspace(host=keyed_server.url, api_key=SecretStr(KEY))
    conversation = RemoteConversation(agent, workspace)
    try:
        conversation.send_message("hello")
        conversation.run()
        assert conversation.state.execution_status.value == "finished"
    finally:
        conversation.close()


def test_connection_refused_says_how_to_start_the_server(agent: Agent) -> None:
    host = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(RemoteConnectionError) as caught:
        RemoteConversation(agent, RemoteWorkspace(host=host))
    assert host in str(caught.value) and "make serve" in str(caught.value)


def test_a_url_with_a_path_says_it_is_not_an_agent_servers_root(
    agent: Agent, server: LiveServer
) -> None:
    with pytest.raises(RemoteConnectionError, match="not an agent server's root"):
        RemoteConversation(agent, RemoteWorkspace(host=f"{server.url}/api"))


def test_not_found_message_says_the_conversation_was_not_found(
    conversation: RemoteConversation, server: LiveServer
) -> None:
    httpx.delete(f"{server.url}/api/conversations/{conversation.id}").raise_for_status()
    with pytest.raises(RemoteConversationNotFoundError, match="was not found"):
        conversation.run()


def test_deleted_conversation_raises_not_found(
    conversation: RemoteConversation, server: LiveServer
) -> None:
    httpx.delete(f"{server.url}/api/conversations/{conversation.id}").raise_for_status()
    with pytest.raises(RemoteConversationNotFoundError, match=str(conversation.id)):
        conversation.send_message("anyone there?")


def test_attaching_with_new_id_creates_that_conversation(
    agent: Agent, remote_workspace: RemoteWorkspace
) -> None:
    wanted = uuid.uuid4()
    conversation = RemoteConversation(agent, remote_workspace, conversation_id=wanted)
    try:
        assert conversation.id == wanted
    finally:
        conversation.close()


def test_run_while_running_raises_already_running(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, server: LiveServer
) -> None:
    model = conversation.agent.llm.model.removeprefix("openai/")
    replies = HeldReplies(FakeReply.text("slow"), FakeReply.text("again"))
    fake_llm.set_responder(model, replies)  # the first run lasts until the check is done
    conversation.send_message("go")
    url = f"{server.url}/api/conversations/{conversation.id}/run"
    try:
        httpx.post(url).raise_for_status()
        with pytest.raises(ConversationAlreadyRunningError):
            conversation.run()
    finally:
        replies.release()


def test_invalid_goal_is_rejected_before_reaching_the_server(
    conversation: RemoteConversation,
) -> None:
    with pytest.raises(ValueError, match="objective"):
        conversation.start_goal("   ")


def test_server_validation_error_names_the_field(conversation: RemoteConversation) -> None:
    # start_goal checks GoalRequest before sending; a raw body reaches the server's check.
    client = RemoteClient(conversation.workspace.host, None)
    try:
        with pytest.raises(RemoteRequestError, match="max_cost"):
            path = f"/api/conversations/{conversation.id}/goal"
            client.request("POST", path, json={"objective": "make it work", "max_cost": -1.0})
    finally:
        client.close()


def test_a_run_waiting_on_a_conversation_deleted_elsewhere_ends_with_not_found(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models, server: LiveServer
) -> None:
    # The server closes the socket (4004); the reconnect is closed "Conversation not found".
    fake_llm.set_responder(
        models.agent, lambda _body: FakeReply.tool_call("think", {"thought": "more"}).delayed(0.2)
    )
    conversation.send_message("think forever")
    errors: list[BaseException] = []
    started = threading.Event()

    def run() -> None:
        started.set()
        try:
            conversation.run()
        except BaseException as exc:
            errors.append(exc)

    runner = threading.Thread(target=run)
    runner.start()
    started.wait(timeout=30)
    seen = 0
    while not any(type(e).__name__ == "ActionEvent" for e in conversation.state.events):
        assert conversation._events.wait_for_length(seen, timeout=EVENT_WAIT), "no agent step"
        seen = len(conversation.state.events)
    httpx.delete(f"{server.url}/api/conversations/{conversation.id}").raise_for_status()
    runner.join(timeout=90)

    assert not runner.is_alive()
    assert [type(e) for e in errors] == [RemoteConversationNotFoundError]
