"""The checkpoint routes end to end on a real server: take, list, diff, rewind (an event), the
refusals, and checkpoints switched off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import ServerProcess, llm_spec, wait_until

pytestmark = pytest.mark.slow


def _create(client: httpx.Client, fake_llm: FakeOpenAIServer, model: str, workdir: Path) -> str:
    workdir.mkdir(parents=True, exist_ok=True)
    body = {
        "agent": {"kind": "Agent", "llm": llm_spec(fake_llm, model)},
        "workspace": {"kind": "LocalWorkspace", "working_dir": str(workdir)},
    }
    response = client.post("/api/conversations", json=body)
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _take(client: httpx.Client, cid: str, label: str) -> dict[str, Any]:
    response = client.post(f"/api/conversations/{cid}/checkpoints", json={"label": label})
    assert response.status_code == 200, response.text
    return response.json()


def test_take_list_diff_and_rewind(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, tmp_path: Path
) -> None:
    workdir = tmp_path / "project"
    cid = _create(client, fake_llm, agent_model, workdir)
    (workdir / "app.py").write_text("print('good')\n")
    good = _take(client, cid, "good")
    (workdir / "app.py").write_text("print('bad')\n")
    (workdir / "junk.txt").write_text("junk\n")
    bad = _take(client, cid, "bad")

    listed = client.get(f"/api/conversations/{cid}/checkpoints").json()
    diff = client.get(f"/api/conversations/{cid}/checkpoints/{bad['id']}/diff").json()
    rewound = client.post(f"/api/conversations/{cid}/checkpoints/{good['id'][:12]}/rewind")

    assert [c["label"] for c in listed] == ["good", "bad"]
    assert {(f["path"], f["change"]) for f in diff["files"]} == {
        ("app.py", "modified"),
        ("junk.txt", "added"),
    }
    assert "-print('good')\n+print('bad')" in diff["patch"]
    assert rewound.status_code == 200, rewound.text
    assert rewound.json()["deleted"] == ["junk.txt"]
    assert (workdir / "app.py").read_text() == "print('good')\n"
    assert not (workdir / "junk.txt").exists()
    events = client.get(
        f"/api/conversations/{cid}/events/search",
        params={"kind": "ConversationStateUpdateEvent", "limit": 100},
    ).json()["items"]
    assert [e["value"]["checkpoint"] for e in events if e["key"] == "rewind"] == [good["id"]]
    assert [e["value"]["label"] for e in events if e["key"] == "checkpoint"] == ["good", "bad"]


def test_an_unknown_checkpoint_is_a_404(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, tmp_path: Path
) -> None:
    cid = _create(client, fake_llm, agent_model, tmp_path / "project")
    _take(client, cid, "start")

    for bad in ("deadbeefdeadbeef", "HEAD", "not-hex"):
        response = client.post(f"/api/conversations/{cid}/checkpoints/{bad}/rewind")
        assert response.status_code == 404, response.text
    assert client.get(f"/api/conversations/{cid}/checkpoints/HEAD/diff").status_code == 404


def test_a_rewind_while_a_goal_runs_is_a_409(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, tmp_path: Path
) -> None:
    cid = _create(client, fake_llm, agent_model, tmp_path / "project")
    start = _take(client, cid, "start")
    fake_llm.set_responder(
        agent_model, lambda _body: FakeReply.tool_call("think", {"thought": "hm"}).delayed(0.5)
    )
    assert client.post(f"/api/conversations/{cid}/goal", json={"objective": "x"}).is_success
    wait_until(
        lambda: client.get(f"/api/conversations/{cid}").json()["execution_status"] == "running",
        what="the goal's run",
    )

    response = client.post(f"/api/conversations/{cid}/checkpoints/{start['id']}/rewind")

    assert response.status_code == 409
    assert "stop it" in response.json()["message"]
    client.post(f"/api/conversations/{cid}/goal/stop")


def test_a_bad_label_is_a_422(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, tmp_path: Path
) -> None:
    cid = _create(client, fake_llm, agent_model, tmp_path / "project")

    response = client.post(f"/api/conversations/{cid}/checkpoints", json={"label": ""})

    assert response.status_code == 422 and "label" in response.text


def test_checkpoints_switched_off_answer_400_saying_so(
    tmp_path: Path, fake_llm: FakeOpenAIServer
) -> None:
    server = ServerProcess(tmp_path / "conversations", env={"OH_CHECKPOINTS": "0"}).start()
    try:
        with server.client() as client:
            cid = _create(client, fake_llm, "off-model", tmp_path / "project")
            response = client.post(f"/api/conversations/{cid}/checkpoints")
            listed = client.get(f"/api/conversations/{cid}/checkpoints")
    finally:
        server.stop()

    assert response.status_code == 400
    assert response.json()["detail"] == "checkpoints_unavailable"
    assert "OH_CHECKPOINTS" in response.json()["message"]
    assert listed.json() == []
