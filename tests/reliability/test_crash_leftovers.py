"""What a kill -9 leaves of a create or a fork is cleaned at start; a damaged log is reported.

A subprocess creates and forks persisted conversations with the SDK and SIGKILLs itself at a
chosen point of the write; then a real server starts on that folder. Nothing may be left
that is neither listed nor reported. A log whose complete last line holds bytes that are not
UTF-8 is reported as damaged, never cut silently as if a crash had torn it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_server.harness import ServerProcess

SCRIPT = """
import os, signal, sys
from openhands.sdk import Agent, LocalConversation
from openhands.sdk.conversation import state as state_module
from openhands.sdk.testing import TestLLM

root, point = sys.argv[1], sys.argv[2]
phase = {"now": "setup"}

def die():
    os.kill(os.getpid(), signal.SIGKILL)

real_write = state_module.write_atomic
def write_atomic(path, data):
    name = os.path.basename(path)
    if (phase["now"], name) in {
        ("fork", "events.jsonl") if point == "fork-events" else None,
        ("fork", "base_state.json") if point == "fork-state" else None,
        ("create", "base_state.json") if point == "create" else None,
    }:
        die()
    return real_write(path, data)
state_module.write_atomic = write_atomic

real_rename = os.rename
def rename(source, target, *args, **kwargs):
    if point == "fork-rename" and phase["now"] == "fork":
        die()
    return real_rename(source, target, *args, **kwargs)
os.rename = rename

def conversation():
    return LocalConversation(
        Agent(llm=TestLLM.from_messages([])),
        os.path.join(root, "work"),
        persistence_dir=os.path.join(root, "conversations"),
    )

source = conversation()
source.send_message("kept")
print(source.id.hex, flush=True)
phase["now"] = point.split("-")[0]
if phase["now"] == "fork":
    source.fork()
else:
    conversation()
print("not killed", flush=True)
"""


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    """Servers a test starts; killed at the end whatever happened."""
    started: list[ServerProcess] = []
    yield started
    for process in started:
        process.kill()


def _server_info(server: ServerProcess) -> dict[str, Any]:
    with server.client() as http:
        return http.get("/server_info").json()


def _listed(server: ServerProcess) -> set[str]:
    with server.client() as http:
        page = http.get("/api/conversations/search").json()
    return {item["id"].replace("-", "") for item in page["items"]}


@pytest.mark.parametrize("point", ["create", "fork-events", "fork-state", "fork-rename"])
def test_a_kill_9_while_creating_or_forking_leaves_nothing_unlisted(
    tmp_path: Path, servers: list[ServerProcess], point: str
) -> None:
    script = tmp_path / "crash.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path), point],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    source = done.stdout.split()[0]
    assert "not killed" not in done.stdout or point == "fork-rename", done.stderr[-2000:]

    server = ServerProcess(tmp_path / "conversations").start()
    servers.append(server)

    # Folders only: the server keeps its start-up index of them beside them as a file.
    folders = {e.name for e in (tmp_path / "conversations").iterdir() if e.is_dir()}
    assert source in _listed(server)
    assert _server_info(server)["broken_conversations"] == []
    assert folders == _listed(server), "a folder is neither listed nor reported"


def test_a_complete_last_line_that_is_not_utf8_is_reported_not_dropped(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    server = ServerProcess(tmp_path / "conversations").start()
    servers.append(server)
    agent = {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "x"}}
    with server.client() as http:
        cid = http.post("/api/conversations", json={"agent": agent}).json()["id"]
        body = {"role": "user", "content": [{"type": "text", "text": "ok"}], "run": False}
        assert http.post(f"/api/conversations/{cid}/events", json=body).status_code == 200
        body["content"][0]["text"] = "damaged later"
        assert http.post(f"/api/conversations/{cid}/events", json=body).status_code == 200
    server.stop()
    log = tmp_path / "conversations" / cid.replace("-", "") / "events.jsonl"
    data = log.read_bytes()
    damaged = data.replace(b"damaged later", b"damaged \xff\xfe later")
    log.write_bytes(damaged)

    server = ServerProcess(tmp_path / "conversations").start()
    servers.append(server)
    with server.client() as http:
        answer = http.get(f"/api/conversations/{cid}/events/search")

    assert answer.status_code == 404
    assert "damaged" in answer.json()["message"]
    [broken] = _server_info(server)["broken_conversations"]
    assert broken["id"] == cid.replace("-", "") and "UTF-8" in broken["error"]
    assert log.read_bytes() == damaged  # nothing was cut away
