"""The races of test_agent_file_races, run as an agent would run them: on a real server with
the sandbox on, the racing job started in the agent's own terminal.

A background loop swaps `flip` between a folder of the workspace and the server's folder
while the agent views `flip/.secret_key` with the file editor; another swaps the folder `d`
for a link to a folder outside while the user takes snapshots and rewinds. The key never
reaches an event, nothing outside is deleted, and a snapshot or rewind answers 200 or 409
(the workspace keeps changing), never 500.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from agent_server.harness import ServerProcess, llm_spec, unique, wait_until
from openhands.agent_server.services.sealing import KEY_FILE_NAME
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from sandbox_support import needs_bwrap

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow, needs_bwrap]

VIEWS = 40


@pytest.fixture
def root() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="oh-race-server-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def server(root: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(root / "conversations", env={"OH_SANDBOX": "bwrap"}).start()
    yield process
    process.stop()


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def _create(http: httpx.Client, fake: FakeOpenAIServer, model: str, workdir: Path) -> str:
    workdir.mkdir(parents=True)
    agent = {
        "kind": "Agent",
        "llm": llm_spec(fake, model),
        "tools": [{"name": "terminal"}, {"name": "file_editor"}],
    }
    body = {"agent": agent, "workspace": {"kind": "LocalWorkspace", "working_dir": str(workdir)}}
    response = http.post("/api/conversations", json=body)
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _run(http: httpx.Client, fake: FakeOpenAIServer, model: str, cid: str, calls: Any) -> None:
    fake.script(model, [*calls, FakeReply.text("done")])
    body = {"role": "user", "content": [{"type": "text", "text": "go"}], "run": True}
    assert http.post(f"/api/conversations/{cid}/events", json=body).status_code == 200
    wait_until(
        lambda: (
            http.get(f"/api/conversations/{cid}").json()["execution_status"]
            in ("finished", "error", "stuck")
        ),
        timeout=240,
        what="the run to finish",
    )
    assert http.get(f"/api/conversations/{cid}").json()["execution_status"] == "finished"


def _texts(http: httpx.Client, cid: str) -> list[str]:
    texts: list[str] = []
    page: str | None = None
    while True:
        params: dict[str, Any] = {"kind": "ObservationEvent", "limit": 100}
        if page:
            params["page_id"] = page
        answer = http.get(f"/api/conversations/{cid}/events/search", params=params).json()
        texts += [p["text"] for item in answer["items"] for p in item["observation"]["content"]]
        page = answer.get("next_page_id")
        if not page:
            return texts


def test_the_agents_own_background_job_cannot_race_the_file_editor_to_the_key(
    root: Path, server: ServerProcess, fake_llm: FakeOpenAIServer
) -> None:
    key = (root / KEY_FILE_NAME).read_text().strip()
    model = unique("agent")
    workdir = root / "work"
    with server.client() as http:
        cid = _create(http, fake_llm, model, workdir)
        (workdir / "real").mkdir()
        (workdir / "real" / KEY_FILE_NAME).write_text("decoy")
        flip = f"while true; do ln -sfn real flip; ln -sfn {root} flip; done > /dev/null 2>&1 &"
        # Paths that differ (the stuck detector ends a run that repeats one call).
        views = [
            FakeReply.tool_call(
                "file_editor", {"command": "view", "path": f"flip/{'./' * (i % 7)}{KEY_FILE_NAME}"}
            )
            for i in range(VIEWS)
        ]
        _run(http, fake_llm, model, cid, [FakeReply.tool_call("terminal", {"command": flip})])
        _run(http, fake_llm, model, cid, views)
        texts = _texts(http, cid)
    assert not [text for text in texts if key in text]
    assert any("decoy" in text for text in texts), "no view reached the workspace side"


def test_snapshots_and_rewinds_while_the_agent_swaps_a_folder_for_a_link(
    root: Path, server: ServerProcess, fake_llm: FakeOpenAIServer
) -> None:
    model = unique("agent")
    workdir = root / "work"
    outside = root / "outside"
    outside.mkdir()
    sentinel = outside / "victim.txt"
    sentinel.write_text("not the agent's")
    with server.client() as http:
        cid = _create(http, fake_llm, model, workdir)
        empty = http.post(f"/api/conversations/{cid}/checkpoints", json={"label": "empty"})
        assert empty.status_code == 200, empty.text
        swap = (
            "while true; do mkdir -p d; echo mine > d/victim.txt; mv d d.aside; "
            f"ln -s {outside} d; rm d; mv d.aside d; done > /dev/null 2>&1 &"
        )
        _run(http, fake_llm, model, cid, [FakeReply.tool_call("terminal", {"command": swap})])
        statuses: list[int] = []
        for index in range(15):
            taken = http.post(f"/api/conversations/{cid}/checkpoints", json={"label": f"{index}"})
            rewound = http.post(f"/api/conversations/{cid}/checkpoints/{empty.json()['id']}/rewind")
            statuses += [taken.status_code, rewound.status_code]
            for answer in (taken, rewound):
                assert answer.status_code in (200, 409), answer.text
                if answer.status_code == 409:
                    assert "changed" in answer.json()["message"], answer.text
            assert sentinel.exists(), f"rewind {index} deleted a file outside the workspace"
        alive = http.get(f"/api/conversations/{cid}").json()
    assert alive["execution_status"] == "finished"
    assert 200 in statuses
