"""The server on a refusing disk: every storage-touching route completes or changes nothing.

Each test runs a real server whose conversations and workspaces live on a small real tmpfs
(skipped where mounting is not permitted); its log is written elsewhere. A full disk is a
507 JSON answer, any other storage failure a 503, and nothing acknowledged is lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from agent_server.harness import ServerProcess, llm_spec, unique
from openhands.sdk.testing import FakeOpenAIServer

from .tmpfs import fill, mounted_tmpfs, remount_read_only

PADDING = "x" * 100_000  # each message is a 100 kB line
ENV = {"OH_PRELOAD_LITELLM": "false"}


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs, unmounted after the test."""
    with mounted_tmpfs(tmp_path / "disk", "4m") as where:
        yield where


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Servers the test starts; stopped at the end."""
    started: list[ServerProcess] = []
    yield started
    for server in started:
        server.stop()


@pytest.fixture
def start(disk: Path, tmp_path: Path, servers: list[ServerProcess]) -> Any:
    """Start a server on the tmpfs (its log outside it)."""

    def starter() -> ServerProcess:
        server = ServerProcess(disk / "conversations", env=ENV, log_dir=tmp_path).start()
        servers.append(server)
        return server

    return starter


def _create(http: httpx.Client, fake: FakeOpenAIServer | None = None) -> str:
    llm = llm_spec(fake, unique("agent")) if fake else {"model": "openai/none"}
    response = http.post("/api/conversations", json={"agent": {"kind": "Agent", "llm": llm}})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _send(http: httpx.Client, cid: str, text: str) -> httpx.Response:
    body = {"content": [{"type": "text", "text": text}]}
    return http.post(f"/api/conversations/{cid}/events", json=body)


def _user_texts(http: httpx.Client, cid: str) -> list[str]:
    texts: list[str] = []
    page_id = None
    while True:
        params = {"kind": "MessageEvent", "source": "user"}
        if page_id is not None:
            params["page_id"] = page_id
        page = http.get(f"/api/conversations/{cid}/events/search", params=params).json()
        texts += [e["llm_message"]["content"][0]["text"] for e in page["items"]]
        page_id = page["next_page_id"]
        if page_id is None:
            return texts


def _folders(path: Path) -> set[str]:
    return {entry.name for entry in path.iterdir()} if path.exists() else set()


def test_messages_acknowledged_around_a_full_disk_all_survive_a_restart(
    disk: Path, start: Any
) -> None:
    # Freed later, to make room again: ~2.9 MB. The background copier writes a copy of every
    # acknowledged event on the same disk; on a busy machine it may still owe copies of all
    # ~1.1 MB written before the disk filled, and writes them first. What is left must hold
    # the three messages after (300 kB) and their copies (another 300 kB) too.
    filler = fill(disk, leave=1_100_000)
    server = start()
    with server.client() as http:
        cid = _create(http)
        acknowledged: list[str] = []
        refused = None
        for index in range(100):
            text = f"message {index}: {PADDING}"
            response = _send(http, cid, text)
            if response.status_code != 200:
                refused = response
                break
            acknowledged.append(text)
        assert refused is not None and refused.status_code == 507, refused and refused.text
        assert "storage is full" in refused.json()["message"]
        filler.unlink()
        for index in range(3):
            text = f"after {index}: {PADDING}"
            assert _send(http, cid, text).status_code == 200
            acknowledged.append(text)
    server.stop()

    again = start()
    with again.client() as http:
        assert http.get(f"/api/conversations/{cid}").status_code == 200
        assert _user_texts(http, cid) == acknowledged


def test_delete_on_a_read_only_folder_is_503_and_the_conversation_stays_usable(
    disk: Path, start: Any
) -> None:
    server = start()
    with server.client() as http:
        cid = _create(http)
        assert _send(http, cid, "keep me").status_code == 200
    server.stop()  # no file stays open for writing: the mount can turn read-only
    remount_read_only(disk)

    again = start()
    with again.client() as http:
        refused = http.delete(f"/api/conversations/{cid}")
        assert refused.status_code == 503, refused.text
        assert "storage failed" in refused.json()["message"]
        listed = http.get("/api/conversations/search").json()["items"]
        assert [item["id"] for item in listed] == [cid]
        assert _user_texts(http, cid) == ["keep me"]
        assert (disk / "conversations" / _hex(cid)).is_dir()


def test_starting_a_goal_on_a_full_disk_is_507_and_no_goal_runs(
    disk: Path, start: Any, fake_llm: FakeOpenAIServer
) -> None:
    server = start()
    with server.client() as http:
        cid = _create(http, fake_llm)
        agent_model = http.get(f"/api/conversations/{cid}").json()["agent"]["llm"]["model"]
        filler = fill(disk, leave=0)
        # The objective is written with the goal's first status: far more than a page.
        body = {"objective": "make it so " + "y" * 20_000, "max_iterations": 2}
        refused = http.post(f"/api/conversations/{cid}/goal", json=body)
        assert refused.status_code == 507, refused.text
        assert http.get(f"/api/conversations/{cid}/goal").json() is None
        assert http.get("/server_info").json()["running_goals"] == 0
        filler.unlink()
        assert http.get(f"/api/conversations/{cid}/goal").json() is None
    assert fake_llm.requests_for(agent_model.removeprefix("openai/")) == []


def test_a_create_refused_by_a_full_disk_leaves_no_folder(disk: Path, start: Any) -> None:
    server = start()
    conversations, workspaces = disk / "conversations", disk / "workspaces"
    with server.client() as http:
        _create(http)
        before = (_folders(conversations), _folders(workspaces))
        fill(disk, leave=0)
        refused = http.post(
            "/api/conversations", json={"agent": {"kind": "Agent", "llm": {"model": "x"}}}
        )
        assert refused.status_code == 507, refused.text
        assert (_folders(conversations), _folders(workspaces)) == before
        assert http.get("/api/conversations/count").json() == 1


def _hex(cid: str) -> str:
    return cid.replace("-", "")


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake OpenAI-compatible server (the goal test never reaches it)."""
    with FakeOpenAIServer() as server:
        yield server
