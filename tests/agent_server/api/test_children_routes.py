"""Child conversations: the agent's `start_child_conversation` tool and the route behind it,
`POST /api/conversations/{id}/children`, on a real server with a session key."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import ServerProcess, llm_spec, unique, wait_until

pytestmark = pytest.mark.slow

KEY = "children-test-key"
BRIEF = "CHILD-BRIEF: write the release notes"


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server that wants a session key (the tool must send the server's own)."""
    root = tmp_path_factory.mktemp("children")
    process = ServerProcess(root / "conversations", env={"OH_SESSION_API_KEYS": KEY}).start()
    yield process
    process.stop()


@pytest.fixture
def http(keyed_server: ServerProcess) -> Iterator[httpx.Client]:
    with keyed_server.client(api_key=KEY) as client:
        yield client


def _user_texts(body: dict[str, Any]) -> list[str]:
    texts = []
    for message in body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, list):
            texts.extend(part.get("text", "") for part in content)
        else:
            texts.append(str(content))
    return texts


def _delegating_agent(body: dict[str, Any]) -> FakeReply:
    """The parent starts one child; the child (same model) answers its brief."""
    if any(BRIEF in text for text in _user_texts(body)):
        return FakeReply.text("child done")
    if not any(message["role"] == "tool" for message in body["messages"]):
        return FakeReply.tool_call(
            "start_child_conversation", {"task": BRIEF, "title": "Notes", "isolation": "shared"}
        )
    return FakeReply.text("parent done")


def _status(http: httpx.Client, cid: str) -> str:
    return http.get(f"/api/conversations/{cid}").json()["execution_status"]


def _events(http: httpx.Client, cid: str) -> list[dict[str, Any]]:
    return http.get(f"/api/conversations/{cid}/events/search", params={"limit": 100}).json()[
        "items"
    ]


def test_the_agent_starts_a_child_that_runs_its_brief(
    http: httpx.Client, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    model = unique("delegating")
    fake_llm.set_responder(model, _delegating_agent)
    workspace = tmp_path / "shared"
    created = http.post(
        "/api/conversations",
        json={
            "agent": {
                "kind": "Agent",
                "llm": llm_spec(fake_llm, model),
                "tools": [{"name": "start_child_conversation"}],
            },
            "workspace": {"kind": "LocalWorkspace", "working_dir": str(workspace)},
            "initial_message": {"role": "user", "content": [{"type": "text", "text": "go"}]},
        },
    )
    assert created.status_code == 201, created.text
    parent = created.json()["id"]
    wait_until(lambda: _status(http, parent) == "finished", what="the parent's run")

    launched = next(
        event["observation"]
        for event in _events(http, parent)
        if event["kind"] == "ObservationEvent"
        and event["observation"]["kind"] == "StartChildConversationObservation"
    )
    assert not launched["is_error"], launched
    child = launched["conversation_id"]
    assert launched["parent_conversation_id"].replace("-", "") == parent.replace("-", "")
    assert launched["isolation"] == "shared" and launched["workspace"] == str(workspace)
    wait_until(lambda: _status(http, child) == "finished", what="the child's run")
    info = http.get(f"/api/conversations/{child}").json()
    texts = [
        part["text"]
        for event in _events(http, child)
        if event["kind"] == "MessageEvent"
        for part in event["llm_message"]["content"]
    ]
    assert info["title"] == "Notes"
    assert info["workspace"]["working_dir"] == str(workspace)
    assert texts == [BRIEF, "child done"]  # a fresh history: the brief, then its answer


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def _parent(http: httpx.Client, fake_llm: FakeOpenAIServer, workspace: Path) -> str:
    model = unique("child")
    fake_llm.set_responder(model, lambda body: FakeReply.text("ok"))
    created = http.post(
        "/api/conversations",
        json={
            "agent": {"kind": "Agent", "llm": llm_spec(fake_llm, model)},
            "workspace": {"kind": "LocalWorkspace", "working_dir": str(workspace)},
        },
    )
    assert created.status_code == 201, created.text
    return created.json()["id"]


def test_a_worktree_child_gets_a_branch_of_the_committed_state(
    http: httpx.Client, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "src" / "kept.txt").write_text("committed\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    (repo / "src" / "draft.txt").write_text("not committed\n")
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {tmp_path}/hook-ran\n")
    hook.chmod(0o755)
    parent = _parent(http, fake_llm, repo / "src")

    answer = http.post(
        f"/api/conversations/{parent}/children", json={"task": "tidy up", "title": "Tidy"}
    )

    assert answer.status_code == 201, answer.text
    child = answer.json()
    where = Path(child["workspace"])
    assert child["isolation"] == "worktree" and where.name == "src" and where != repo / "src"
    assert (where / "kept.txt").read_text() == "committed\n"
    assert not (where / "draft.txt").exists()
    assert _git(where, "branch", "--show-current").startswith("openhands/child-")
    assert not (tmp_path / "hook-ran").exists()  # the repository's hooks never run
    assert child["title"] == "Tidy" and child["status"] in ("running", "finished", "idle")


def test_without_a_repository_a_worktree_child_shares_the_folder(
    http: httpx.Client, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    parent = _parent(http, fake_llm, tmp_path / "plain")

    child = http.post(f"/api/conversations/{parent}/children", json={"task": "look"}).json()

    assert child["isolation"] == "shared" and child["workspace"] == str(tmp_path / "plain")


def test_bad_launches_are_refused_by_name(
    http: httpx.Client, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    parent = _parent(http, fake_llm, tmp_path / "w")
    unknown = "0" * 32

    missing = http.post(f"/api/conversations/{unknown}/children", json={"task": "x"})
    blank = http.post(f"/api/conversations/{parent}/children", json={"task": ""})
    odd = http.post(f"/api/conversations/{parent}/children", json={"task": "x", "isolation": "vm"})

    assert missing.status_code == 404
    assert blank.status_code == 422 and "task" in blank.text
    assert odd.status_code == 422 and "isolation" in odd.text
