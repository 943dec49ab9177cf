"""DELETE removes only what the conversation made and nobody else uses, and says what it kept.

Real server processes: a folder the user had at the default working directory survives the
delete; a working directory a fork still uses survives its source's delete (also after a
restart, when neither is open) and goes with the last conversation that uses it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_server.harness import ServerProcess, llm_spec, unique
from openhands.sdk.testing import FakeOpenAIServer


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake LLM server (no replies are needed: nothing runs)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    """Servers a test starts; killed at the end whatever happened."""
    started: list[ServerProcess] = []
    yield started
    for process in started:
        process.kill()


def _start(servers: list[ServerProcess], root: Path) -> ServerProcess:
    process = ServerProcess(root / "conversations").start()
    servers.append(process)
    return process


def _create(server: ServerProcess, fake: FakeOpenAIServer, **extra: Any) -> dict[str, Any]:
    body = {"agent": {"kind": "Agent", "llm": llm_spec(fake, unique("agent"))}, **extra}
    with server.client() as http:
        response = http.post("/api/conversations", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def _delete(server: ServerProcess, cid: str) -> dict[str, Any]:
    with server.client() as http:
        response = http.delete(f"/api/conversations/{cid}")
    assert response.status_code == 200, response.text
    return response.json()


def test_a_folder_that_existed_at_the_default_working_dir_is_kept(
    tmp_path: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    server = _start(servers, tmp_path)
    cid = uuid.uuid4()
    folder = tmp_path / "workspaces" / cid.hex
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("the user's own file")

    info = _create(server, fake_llm, conversation_id=str(cid))
    assert info["workspace"]["working_dir"] == str(folder)
    answer = _delete(server, str(cid))

    assert (folder / "notes.txt").read_text() == "the user's own file"
    assert answer["success"] is True
    assert [kept["path"] for kept in answer["kept"]] == [str(folder)]
    assert "existed before" in answer["kept"][0]["reason"]
    assert str(folder) not in answer["removed"]


def test_a_working_dir_the_server_made_goes_with_the_conversation(
    tmp_path: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    server = _start(servers, tmp_path)
    info = _create(server, fake_llm)
    folder = Path(info["workspace"]["working_dir"])
    assert folder.is_dir()

    answer = _delete(server, info["id"])

    assert not folder.exists()
    assert str(folder) in answer["removed"] and answer["kept"] == []


@pytest.mark.parametrize("restart", [False, True])
def test_a_fork_keeps_the_shared_working_dir_until_it_is_deleted_too(
    tmp_path: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess], restart: bool
) -> None:
    server = _start(servers, tmp_path)
    source = _create(server, fake_llm)
    folder = Path(source["workspace"]["working_dir"])
    (folder / "work.txt").write_text("made by the agent")
    with server.client() as http:
        forked = http.post(f"/api/conversations/{source['id']}/fork", json={})
    assert forked.status_code == 201, forked.text
    fork = forked.json()
    assert fork["workspace"]["working_dir"] == str(folder)
    if restart:  # neither is open now: the delete answers from the stored summaries
        server.kill()
        server = _start(servers, tmp_path)

    first = _delete(server, source["id"])

    assert (folder / "work.txt").read_text() == "made by the agent"
    assert [kept["path"] for kept in first["kept"]] == [str(folder)]
    assert fork["id"] in first["kept"][0]["reason"]
    with server.client() as http:
        assert http.get(f"/api/conversations/{fork['id']}").status_code == 200

    second = _delete(server, fork["id"])

    assert not folder.exists()
    assert str(folder) in second["removed"]
