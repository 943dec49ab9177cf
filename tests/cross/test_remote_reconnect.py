"""The client's event mirror survives a server restart: nothing missed, nothing duplicated."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from live_server import LiveServer, Models, make_llm
from openhands.sdk import Agent, MessageEvent
from openhands.sdk.conversation.remote import RemoteConversation
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from openhands.sdk.workspace import RemoteWorkspace

pytestmark = pytest.mark.timeout(180)


def test_mirror_catches_up_after_server_restart(
    tmp_path: Path, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    (tmp_path / "server").mkdir()
    # Secrets never reach disk, so the restarted server takes the LLM key from its env.
    env = {"LLM_API_KEY": "fake-key"}
    live = LiveServer(tmp_path / "server", extra_env=env).start()
    agent = Agent(llm=make_llm(fake_llm, models.agent))
    fake_llm.script(models.agent, [FakeReply.text("before"), FakeReply.text("after")])
    conversation = RemoteConversation(
        agent, RemoteWorkspace(host=live.url, working_dir=str(tmp_path / "project"))
    )
    try:
        conversation.send_message("one")
        conversation.run()
        live.stop()
        live = LiveServer(live.root, port=live.port, extra_env=env).start()
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
