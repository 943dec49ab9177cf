"""Many stored conversations, few file descriptors: the server starts, lists and uses them all.

320 conversations (about 35 events each, written by the SDK in a subprocess) are stored, then
the server starts under `ulimit -n 256`. It must answer /health having opened none of them,
list and count them from their summaries, and take a message in every one of them (each is
opened on demand) without running out of descriptors.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from agent_server.harness import ServerProcess

CONVERSATIONS = 320
FD_LIMIT = 256

GENERATOR = """
import json, os, sys
os.fsync = lambda fd: None  # test data: durability is not what is measured here
from openhands.sdk import Agent, LocalConversation, Message, MessageToolCall, TextContent
from openhands.sdk.testing import TestLLM

root, count = sys.argv[1], int(sys.argv[2])
for n in range(count):
    calls = [
        Message(role="assistant", content=[TextContent(text="working")], tool_calls=[
            MessageToolCall(id=f"c{i}", name="think", arguments=json.dumps({"thought": f"{i}"}))
        ])
        for i in range(15)
    ]
    agent = Agent(llm=TestLLM.from_messages([*calls, Message(role="assistant", content=[
        TextContent(text="done")])]))
    conversation = LocalConversation(
        agent, os.path.join(root, "work"), persistence_dir=os.path.join(root, "conversations")
    )
    conversation.send_message(f"task {n}")
    conversation.run()
    conversation.close()
"""


def _low_fd_limit() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, hard))


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding CONVERSATIONS finished conversations."""
    root = tmp_path_factory.mktemp("scale")
    done = subprocess.run(
        [sys.executable, "-c", GENERATOR, str(root), str(CONVERSATIONS)],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return root


@pytest.fixture(scope="module")
def server(stored: Path) -> Iterator[ServerProcess]:
    """The server on those conversations, limited to FD_LIMIT open files."""
    process = ServerProcess(
        stored / "conversations",
        env={"OH_PRELOAD_LITELLM": "false"},
        preexec_fn=_low_fd_limit,
    ).start()
    yield process
    process.stop()


def _all_ids(http: httpx.Client) -> list[str]:
    ids: list[str] = []
    page_id = None
    while True:
        params = {"limit": 100, **({"page_id": page_id} if page_id else {})}
        page = http.get("/api/conversations/search", params=params).json()
        ids += [item["id"] for item in page["items"]]
        page_id = page["next_page_id"]
        if page_id is None:
            return ids


def _open_fds(server: ServerProcess) -> int:
    assert server.process is not None
    return len(os.listdir(f"/proc/{server.process.pid}/fd"))


def test_start_up_opens_none_of_the_stored_conversations(server: ServerProcess) -> None:
    with server.client() as http:
        info = http.get("/server_info").json()
    assert (info["conversations"], info["open_conversations"]) == (CONVERSATIONS, 0)
    assert info["broken_conversations"] == []


def test_search_lists_every_stored_conversation_once_from_its_summary(
    server: ServerProcess,
) -> None:
    with server.client() as http:
        ids = _all_ids(http)
        assert len(ids) == len(set(ids)) == CONVERSATIONS
        assert http.get("/api/conversations/count").json() == CONVERSATIONS
        one = http.get(f"/api/conversations/{ids[-1]}").json()
        assert (one["title"], one["execution_status"]) == ("task 0", "finished")


def test_every_conversation_takes_a_message_within_the_descriptor_limit(
    server: ServerProcess,
) -> None:
    with server.client() as http:
        ids = _all_ids(http)
        most_fds = 0
        for cid in ids:
            body = {"content": [{"type": "text", "text": f"more for {cid}"}]}
            assert http.post(f"/api/conversations/{cid}/events", json=body).status_code == 200
            most_fds = max(most_fds, _open_fds(server))
        counts = {http.get(f"/api/conversations/{cid}/events/count").json() for cid in ids[:5]}
        info = http.get("/server_info").json()
        assert http.get("/health").status_code == 200
    assert most_fds < FD_LIMIT
    assert info["open_conversations"] == CONVERSATIONS
    assert len(counts) == 1 and counts.pop() > 30  # the whole history, plus the new message
