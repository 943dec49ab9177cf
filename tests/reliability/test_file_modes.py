"""Every file the server writes for conversations is 0600 and every folder 0700.

A real server started with umask 022 (which would give 0644 files and 0755 folders): after a
conversation runs with a sub-agent task, is forked and gets a goal, nothing under the
conversations folder can be read by another user, nor can the key file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_server.harness import ServerProcess, llm_spec, unique, verdict, wait_goal_end, wait_until
from openhands.agent_server.services.sealing import KEY_FILE_NAME
from openhands.sdk.testing import FakeOpenAIServer, FakeReply


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake LLM server."""
    with FakeOpenAIServer() as server:
        yield server


def _umask_022() -> None:
    os.umask(0o022)


def _modes(root: Path) -> dict[str, int]:
    """Mode of every file and folder under `root` (and of `root`), by relative path."""
    found = {".": stat.S_IMODE(root.stat().st_mode)}
    for path in root.rglob("*"):
        found[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def test_conversation_files_are_0600_and_folders_0700(
    tmp_path: Path, fake_llm: FakeOpenAIServer
) -> None:
    model, judge = unique("agent"), unique("judge")
    fake_llm.script(model, [FakeReply.text("done"), FakeReply.text("done again")])
    fake_llm.script(judge, [verdict(True)])
    server = ServerProcess(
        tmp_path / "conversations", env={"OH_EVENT_FILES": "1"}, preexec_fn=_umask_022
    ).start()
    try:
        agent = {"kind": "Agent", "llm": llm_spec(fake_llm, model)}
        with server.client() as http:
            cid = http.post("/api/conversations", json={"agent": agent}).json()["id"]
            body = {"role": "user", "content": [{"type": "text", "text": "hi"}], "run": True}
            assert http.post(f"/api/conversations/{cid}/events", json=body).status_code == 200
            wait_until(
                lambda: (
                    http.get(f"/api/conversations/{cid}").json()["execution_status"] == "finished"
                ),
                what="the run",
            )
            assert http.post(f"/api/conversations/{cid}/fork", json={}).status_code == 201
            goal = {"objective": "be done", "judge_llm": llm_spec(fake_llm, judge)}
            assert http.post(f"/api/conversations/{cid}/goal", json=goal).status_code == 200
            wait_goal_end(lambda: http.get(f"/api/conversations/{cid}/goal").json(), 120.0)
    finally:
        server.stop()

    modes = _modes(tmp_path / "conversations")
    assert any(name.endswith("events.jsonl") for name in modes)
    assert any(name.endswith("secrets.sealed") for name in modes)
    assert any("/events/event-" in name for name in modes)
    too_open = {name: oct(mode) for name, mode in modes.items() if mode & 0o077}
    assert too_open == {}
    folders = [p for p in (tmp_path / "conversations").rglob("*") if p.is_dir()]
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o700 for p in folders)
    assert stat.S_IMODE((tmp_path / KEY_FILE_NAME).stat().st_mode) == 0o600


def test_an_open_conversations_folder_is_made_private_at_start(tmp_path: Path) -> None:
    folder = tmp_path / "conversations"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)

    server = ServerProcess(folder).start()
    server.stop()

    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
