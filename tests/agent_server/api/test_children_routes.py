"""Child conversations: the agent's `start_child_conversation` tool and the route behind it,
`POST /api/conversations/{id}/children`, on a real server with a session key."""

from __future__ import annotations

import subprocess
import uuid
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
    assert uuid.UUID(info["parent_conversation_id"]) == uuid.UUID(parent)  # linked both ways
    assert _info(http, parent)["sub_conversation_ids"] == [str(uuid.UUID(child))]
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


def _info(http: httpx.Client, cid: str) -> dict[str, Any]:
    answer = http.get(f"/api/conversations/{cid}")
    assert answer.status_code == 200, answer.text
    return answer.json()


def _listed(http: httpx.Client) -> dict[str, dict[str, Any]]:
    items = http.get("/api/conversations/search", params={"limit": 100}).json()["items"]
    return {item["id"]: item for item in items}


def _child(http: httpx.Client, parent: str, **body: Any) -> str:
    answer = http.post(f"/api/conversations/{parent}/children", json={"task": "go", **body})
    assert answer.status_code == 201, answer.text
    return str(uuid.UUID(answer.json()["conversation_id"]))


def test_children_are_linked_to_their_parent_across_a_restart_and_deletes(
    tmp_path: Path, fake_llm: FakeOpenAIServer
) -> None:
    root = tmp_path / "server"
    root.mkdir()
    server = ServerProcess(root / "conversations").start()
    try:
        with server.client() as http:
            parent = _parent(http, fake_llm, tmp_path / "shared")
            first = _child(http, parent, isolation="shared")
            second = _child(http, parent, isolation="shared")
            # A fork of a child is one more child of the same parent (as the reference's
            # fork keeps the link); a fork of the parent starts with no children.
            child_fork = http.post(f"/api/conversations/{second}/fork", json={}).json()["id"]
            parent_fork = http.post(f"/api/conversations/{parent}/fork", json={}).json()["id"]
            before = (_info(http, parent), _info(http, first), _listed(http))
        server.stop()
        server = ServerProcess(root / "conversations").start()
        with server.client() as http:
            after_restart = (_info(http, parent), _info(http, first), _listed(http))
            forks = (_info(http, child_fork), _info(http, parent_fork))
            batch = http.get("/api/conversations", params=[("ids", parent), ("ids", second)])
            assert http.delete(f"/api/conversations/{first}").status_code == 200
            assert http.delete(f"/api/conversations/{child_fork}").status_code == 200
            after_child_deleted = _info(http, parent)["sub_conversation_ids"]
            assert http.delete(f"/api/conversations/{parent}").status_code == 200
            orphan = _info(http, second)
            listed = _listed(http)
    finally:
        server.stop()

    for parent_info, child_info, listing in (before, after_restart):
        assert parent_info["sub_conversation_ids"] == [first, second, child_fork]  # oldest 1st
        assert parent_info["parent_conversation_id"] is None
        assert child_info["parent_conversation_id"] == parent
        assert child_info["sub_conversation_ids"] == []
        assert listing[parent]["sub_conversation_ids"] == [first, second, child_fork]
        assert listing[second]["parent_conversation_id"] == parent
    [batch_parent, batch_child] = batch.json()
    assert batch_parent["sub_conversation_ids"] == [first, second, child_fork]
    assert batch_child["parent_conversation_id"] == parent
    assert forks[0]["parent_conversation_id"] == parent
    assert forks[1]["parent_conversation_id"] is None and forks[1]["sub_conversation_ids"] == []
    assert after_child_deleted == [second]
    # As the reference does: deleting the parent leaves its children, the link kept.
    assert orphan["parent_conversation_id"] == parent and second in listed


def test_deleting_a_worktree_child_removes_its_worktree_and_keeps_its_branch(
    http: httpx.Client, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("a\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    parent = _parent(http, fake_llm, repo)
    child = http.post(f"/api/conversations/{parent}/children", json={"task": "t"}).json()
    where = Path(child["workspace"])
    branch = _git(where, "branch", "--show-current")
    fork = http.post(f"/api/conversations/{child['conversation_id']}/fork", json={}).json()["id"]

    kept = http.delete(f"/api/conversations/{child['conversation_id']}").json()
    still_there = where.is_dir()
    removed = http.delete(f"/api/conversations/{fork}").json()

    # The fork shared the worktree: it stayed until the last conversation in it was deleted.
    assert still_there and [k["path"] for k in kept["kept"]] == [str(where)]
    assert "still uses it" in kept["kept"][0]["reason"]
    assert str(where) in removed["removed"] and not where.exists()
    assert str(where) not in _git(repo, "worktree", "list")  # git's record went too
    assert branch in _git(repo, "branch", "--list")  # the work stays on its branch
    assert (repo / "a.txt").read_text() == "a\n" and _info(http, parent)["id"] == parent


def test_a_conversation_created_with_a_parent_shares_its_folder(
    http: httpx.Client, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    parent = _parent(http, fake_llm, tmp_path / "p")
    agent = {"kind": "Agent", "llm": llm_spec(fake_llm, unique("c"))}
    created = http.post(
        "/api/conversations", json={"agent": agent, "parent_conversation_id": parent}
    )
    unknown = http.post(
        "/api/conversations", json={"agent": agent, "parent_conversation_id": str(uuid.uuid4())}
    )
    elsewhere = http.post(
        "/api/conversations",
        json={
            "agent": agent,
            "parent_conversation_id": parent,
            "workspace": {"kind": "LocalWorkspace", "working_dir": str(tmp_path / "other")},
        },
    )
    own = str(uuid.uuid4())
    itself = http.post(
        "/api/conversations",
        json={"agent": agent, "conversation_id": own, "parent_conversation_id": own},
    )

    assert created.status_code == 201, created.text
    child = created.json()
    assert child["parent_conversation_id"] == parent
    assert child["workspace"]["working_dir"] == str(tmp_path / "p")
    assert _info(http, parent)["sub_conversation_ids"] == [child["id"]]
    for refused, words in ((unknown, "not found"), (elsewhere, "works in"), (itself, "own")):
        assert refused.status_code == 422, refused.text
        assert "parent_conversation_id" in refused.text and words in refused.text
    assert not (tmp_path / "other").exists()  # nothing was made for a refused request


def test_git_works_in_a_worktree_childs_sandboxed_terminal(
    http: httpx.Client, fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("a\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "the-first-commit")
    model = unique("gitchild")
    fake_llm.script(
        model,
        [
            FakeReply.tool_call(
                "terminal",
                {
                    "command": "echo change >> a.txt && git log --oneline && git status && "
                    "git -c user.name=c -c user.email=c@example.com commit -qam child-commit "
                    "&& echo COMMITTED; common=$(git rev-parse --git-common-dir); "
                    "touch $common/hooks/post-checkout || echo HOOKS-REFUSED; "
                    "echo x >> $common/config || echo CONFIG-REFUSED"
                },
            ),
            FakeReply.text("done"),
        ],
    )
    created = http.post(
        "/api/conversations",
        json={
            "agent": {
                "kind": "Agent",
                "llm": llm_spec(fake_llm, model),
                "tools": [{"name": "terminal"}],
            },
            "workspace": {"kind": "LocalWorkspace", "working_dir": str(repo)},
        },
    )
    assert created.status_code == 201, created.text

    child = _child(http, created.json()["id"])
    wait_until(lambda: _status(http, child) == "finished", what="the child's run")

    [observation] = [
        event["observation"]
        for event in _events(http, child)
        if event["kind"] == "ObservationEvent"
    ]
    output = "".join(part.get("text", "") for part in observation["content"])
    assert "the-first-commit" in output and "modified:   a.txt" in output, output
    assert "COMMITTED" in output, output
    # Git works in the worktree, but the repository's hooks and config stay out of reach.
    assert "HOOKS-REFUSED" in output and "CONFIG-REFUSED" in output, output
    assert not (repo / ".git" / "hooks" / "post-checkout").exists()
    assert (repo / "a.txt").read_text() == "a\n"  # the parent's checkout is untouched
    assert "child-commit" in _git(repo, "log", "--oneline", "--all")  # on the child's branch
