"""The client's event mirror survives a server restart: nothing missed, nothing duplicated."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx
from live_server import LiveServer, Models, make_llm
from openhands.sdk import (
    Agent,
    ConversationRunError,
    ConversationStateUpdateEvent,
    Event,
    MessageEvent,
)
from openhands.sdk.remote import RemoteConversation, RemoteWorkspace
from openhands.sdk.testing import FakeOpenAIServer, FakeReply


def test_mirror_catches_up_after_server_restart(
    tmp_path: Path, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    (tmp_path / "server").mkdir()
    # Secrets never reach disk, so the restarted server takes the LLM key from its env.
    env = {"LLM_API_KEY": "fake-key"}
    live = LiveServer(tmp_path / "server", env=env).start()
    agent = Agent(llm=make_llm(fake_llm, models.agent))
    fake_llm.script(models.agent, [FakeReply.text("before"), FakeReply.text("after")])
    conversation = RemoteConversation(
        agent, RemoteWorkspace(host=live.url, working_dir=str(tmp_path / "project"))
    )
    try:
        conversation.send_message("one")
        conversation.run()
        live.stop()
        live = LiveServer(live.root, port=live.port, env=env).start()
        # An event appended while the client may still be disconnected.
        httpx.post(
            f"{live.url}/api/conversations/{conversation.id}/events",
            json={"role": "user", "content": [{"type": "text", "text": "behind your back"}]},
        ).raise_for_status()
        conversation.send_message("two")
        conversation.run()
        server_ids = [
            item["id"]
            for item in httpx.get(
                f"{live.url}/api/conversations/{conversation.id}/events/search"
            ).json()["items"]
        ]
        assert [event.id for event in conversation.state.events] == server_ids
        texts = [
            e.llm_message.text for e in conversation.state.events if isinstance(e, MessageEvent)
        ]
        assert texts == ["one", "before", "behind your back", "two", "after"]
    finally:
        conversation.close()
        live.stop()


def test_run_raises_run_lost_when_the_server_crashes_mid_run(
    tmp_path: Path, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    (tmp_path / "server").mkdir()
    env = {"LLM_API_KEY": "fake-key"}
    live = LiveServer(tmp_path / "server", env=env).start()
    fake_llm.script(models.agent, [FakeReply.text("never delivered").delayed(5.0)])
    running = threading.Event()

    def on_event(event: Event) -> None:
        if isinstance(event, ConversationStateUpdateEvent) and event.value == "running":
            running.set()

    conversation = RemoteConversation(
        Agent(llm=make_llm(fake_llm, models.agent)),
        RemoteWorkspace(host=live.url, working_dir=str(tmp_path / "project")),
        callbacks=[on_event],
    )
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            conversation.run()
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    runner = threading.Thread(target=run, daemon=True)
    try:
        conversation.send_message("work slowly")
        runner.start()
        assert running.wait(30)
        live.kill()
        live = LiveServer(live.root, port=live.port, env=env).start()
        runner.join(60)
        assert not runner.is_alive(), "run() still waits for a run the restarted server lost"
        error = outcome[0]
        assert isinstance(error, ConversationRunError)
        assert error.code == "RunLost"
    finally:
        conversation.close()
        live.stop()
