"""RemoteConversation against a real agent server: create, send, run, mirror events."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import httpx
import pytest
from live_server import LiveServer, Models
from openhands.sdk import (
    Agent,
    ConversationErrorEvent,
    ConversationRunError,
    Event,
    HookConfig,
    MessageEvent,
)
from openhands.sdk.conversation import ConversationClosedError, ConversationExecutionStatus
from openhands.sdk.event import ActionEvent, ObservationEvent, SystemPromptEvent
from openhands.sdk.remote import Conversation, RemoteConversation, RemoteWorkspace
from openhands.sdk.testing import FakeOpenAIServer, FakeReply


def server_event_ids(server: LiveServer, conversation_id: object) -> list[str]:
    ids: list[str] = []
    page_id = None
    while True:
        params = {"limit": 100, **({"page_id": page_id} if page_id else {})}
        page = httpx.get(
            f"{server.url}/api/conversations/{conversation_id}/events/search",
            params=params,
            headers=server.headers(),
        ).json()
        ids += [item["id"] for item in page["items"]]
        page_id = page["next_page_id"]
        if not page_id:
            return ids


def agent_texts(conversation: RemoteConversation) -> list[str]:
    return [
        event.llm_message.text
        for event in conversation.state.events
        if isinstance(event, MessageEvent) and event.source == "agent"
    ]


def test_factory_gives_remote_conversation_for_remote_workspace(
    agent: Agent, remote_workspace: RemoteWorkspace
) -> None:
    conversation = Conversation(agent, workspace=remote_workspace)
    try:
        assert isinstance(conversation, RemoteConversation)
    finally:
        conversation.close()


def test_create_registers_conversation_on_server(
    conversation: RemoteConversation, server: LiveServer
) -> None:
    info = httpx.get(f"{server.url}/api/conversations/{conversation.id}").json()
    assert info["id"] == str(conversation.id)
    assert info["execution_status"] == "idle"


def test_new_conversation_mirrors_system_prompt(conversation: RemoteConversation) -> None:
    assert isinstance(conversation.state.events[0], SystemPromptEvent)


def test_send_message_appends_user_message_on_server(
    conversation: RemoteConversation, server: LiveServer
) -> None:
    conversation.send_message("hello server")
    page = httpx.get(
        f"{server.url}/api/conversations/{conversation.id}/events/search",
        params={"kind": "MessageEvent"},
    ).json()
    assert [item["llm_message"]["content"][0]["text"] for item in page["items"]] == ["hello server"]


def test_run_returns_with_status_finished(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.script(models.agent, [FakeReply.text("all done")])
    conversation.send_message("do it")
    conversation.run()
    assert conversation.state.execution_status == ConversationExecutionStatus.FINISHED
    assert agent_texts(conversation) == ["all done"]


def test_events_mirror_the_servers_log(
    conversation: RemoteConversation,
    fake_llm: FakeOpenAIServer,
    models: Models,
    server: LiveServer,
) -> None:
    fake_llm.script(models.agent, [FakeReply.text("one"), FakeReply.text("two")])
    for text in ("first", "second"):
        conversation.send_message(text)
        conversation.run()
    mirrored = [event.id for event in conversation.state.events]
    assert mirrored == server_event_ids(server, conversation.id)


def test_run_with_tool_call_executes_it_on_the_server(
    conversation: RemoteConversation,
    fake_llm: FakeOpenAIServer,
    models: Models,
    remote_workspace: RemoteWorkspace,
) -> None:
    fake_llm.script(
        models.agent,
        [
            FakeReply.tool_call("terminal", {"command": "echo remote-ok > proof.txt"}),
            FakeReply.text("wrote proof.txt"),
        ],
    )
    conversation.send_message("write the proof")
    conversation.run()
    actions = [e for e in conversation.state.events if isinstance(e, ActionEvent)]
    observations = [e for e in conversation.state.events if isinstance(e, ObservationEvent)]
    assert [a.action and a.action.model_dump() for a in actions] == [
        {
            "command": "echo remote-ok > proof.txt",
            "is_input": False,
            "timeout": None,
            "reset": False,
        }
    ]
    assert len(observations) == 1 and not observations[0].is_error
    assert (Path(remote_workspace.working_dir) / "proof.txt").read_text().strip() == "remote-ok"


def test_failed_run_raises_with_server_error_detail(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.script(models.agent, [FakeReply.error(400, "the model refuses")])
    conversation.send_message("fail please")
    with pytest.raises(ConversationRunError) as caught:
        conversation.run()
    assert "the model refuses" in caught.value.detail
    assert caught.value.conversation_id == conversation.id
    assert conversation.state.execution_status == ConversationExecutionStatus.ERROR


def test_stuck_run_returns_with_status_stuck_like_a_local_run(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    fake_llm.set_responder(
        models.agent, lambda _body: FakeReply.tool_call("think", {"thought": "same again"})
    )
    conversation.send_message("repeat yourself")
    conversation.run()  # stuck is a status, not an exception
    assert conversation.state.execution_status == ConversationExecutionStatus.STUCK
    errors = [e for e in conversation.state.events if isinstance(e, ConversationErrorEvent)]
    assert [e.code for e in errors] == ["Stuck"]


def test_run_after_a_finished_run_waits_for_its_own_end(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    # The first run's `finished` must not end the second run, whose reply is slow.
    fake_llm.script(models.agent, [FakeReply.text("quick"), FakeReply.text("slow").delayed(0.5)])
    conversation.send_message("one")
    conversation.run()
    conversation.send_message("two")
    conversation.run()
    assert agent_texts(conversation) == ["quick", "slow"]


def test_run_waits_while_a_stop_hook_sends_the_agent_back(
    fake_llm: FakeOpenAIServer, models: Models, agent: Agent, remote_workspace: RemoteWorkspace
) -> None:
    # The hook blocks the first stop (exit 2) and allows the second.
    hook = (
        "if [ -e stop-once ]; then exit 0; fi; touch stop-once; "
        "echo 'write the summary first' >&2; exit 2"
    )
    hooks = HookConfig.model_validate({"Stop": [{"hooks": [{"command": hook}]}]})
    fake_llm.script(models.agent, [FakeReply.text("done?"), FakeReply.text("summary written")])
    conversation = RemoteConversation(agent, remote_workspace, hook_config=hooks)
    try:
        conversation.send_message("work")
        conversation.run()
        assert agent_texts(conversation) == ["done?", "summary written"]
    finally:
        conversation.close()


def test_callbacks_receive_each_new_event_once(
    fake_llm: FakeOpenAIServer, models: Models, agent: Agent, remote_workspace: RemoteWorkspace
) -> None:
    received: list[Event] = []
    lock = threading.Lock()

    def remember(event: Event) -> None:
        with lock:
            received.append(event)

    fake_llm.script(models.agent, [FakeReply.text("hi")])
    conversation = RemoteConversation(agent, remote_workspace, callbacks=[remember])
    try:
        conversation.send_message("hello")
        conversation.run()
        with lock:
            ids = [event.id for event in received]
        new_ids = [event.id for event in conversation.state.events][1:]  # after the prompt
        assert ids == new_ids
    finally:
        conversation.close()


def test_attaching_by_id_mirrors_the_existing_history(
    conversation: RemoteConversation,
    fake_llm: FakeOpenAIServer,
    models: Models,
    agent: Agent,
    remote_workspace: RemoteWorkspace,
) -> None:
    fake_llm.script(models.agent, [FakeReply.text("first answer")])
    conversation.send_message("question")
    conversation.run()
    attached = RemoteConversation(agent, remote_workspace, conversation_id=conversation.id)
    try:
        assert [e.id for e in attached.state.events] == [e.id for e in conversation.state.events]
    finally:
        attached.close()


def test_pause_on_idle_conversation_sets_paused(conversation: RemoteConversation) -> None:
    conversation.pause()
    assert conversation.state.execution_status == ConversationExecutionStatus.PAUSED


def test_close_leaves_the_conversation_on_the_server(
    agent: Agent, remote_workspace: RemoteWorkspace, server: LiveServer
) -> None:
    conversation = RemoteConversation(agent, remote_workspace)
    conversation.close()
    answer = httpx.get(f"{server.url}/api/conversations/{conversation.id}")
    assert answer.status_code == 200


def test_send_after_close_raises_conversation_closed_like_a_local_conversation(
    agent: Agent, remote_workspace: RemoteWorkspace
) -> None:
    conversation = RemoteConversation(agent, remote_workspace)
    conversation.close()
    with pytest.raises(ConversationClosedError):
        conversation.send_message("anyone?")


def test_pause_ends_a_run_blocked_in_another_thread(
    conversation: RemoteConversation, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    steps = itertools.count()  # distinct thoughts, so the stuck detector stays quiet
    fake_llm.set_responder(
        models.agent,
        lambda _body: FakeReply.tool_call("think", {"thought": f"step {next(steps)}"}).delayed(0.2),
    )
    conversation.send_message("think for a long time")
    runner = threading.Thread(target=conversation.run)
    runner.start()
    for _ in range(200):
        if conversation.state.execution_status == ConversationExecutionStatus.RUNNING:
            break
        threading.Event().wait(0.05)
    conversation.pause()
    runner.join(timeout=30)
    assert not runner.is_alive()
    assert conversation.state.execution_status == ConversationExecutionStatus.PAUSED


@pytest.mark.parametrize("delete_on_close", [False, True])
def test_closing_deletes_the_conversation_on_the_server_only_when_asked(
    agent: Agent, remote_workspace: RemoteWorkspace, server: LiveServer, delete_on_close: bool
) -> None:
    conversation = Conversation(agent, workspace=remote_workspace, delete_on_close=delete_on_close)
    assert isinstance(conversation, RemoteConversation)
    url = f"{server.url}/api/conversations/{conversation.id}"
    assert httpx.get(url, headers=server.headers()).status_code == 200

    conversation.close()

    assert httpx.get(url, headers=server.headers()).status_code == (404 if delete_on_close else 200)
    conversation.close()  # a second close does nothing (and deletes nothing twice)
