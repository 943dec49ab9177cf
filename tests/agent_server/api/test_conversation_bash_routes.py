"""A conversation's own bash routes: its working directory, its sandbox, its own events."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from child_processes import Sleeper

from ..harness import ServerProcess

pytestmark = pytest.mark.slow

KEY = "conversation-bash-key"


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("conversation-bash")
    process = ServerProcess(root / "conversations", env={"OH_SESSION_API_KEYS": KEY}).start()
    yield process
    process.stop()


@pytest.fixture
def api(keyed: ServerProcess) -> Iterator[httpx.Client]:
    with keyed.client() as client:
        yield client


def create(api: httpx.Client, working_dir: Path) -> str:
    working_dir.mkdir(exist_ok=True)
    body = {
        "agent": {"kind": "Agent", "llm": {"model": "openai/none", "api_key": "x"}},
        "workspace": {"kind": "LocalWorkspace", "working_dir": str(working_dir)},
    }
    answer = api.post("/api/conversations", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def search(api: httpx.Client, base: str, **params: str) -> list[dict]:
    answer = api.get(f"{base}/bash_events/search", params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()["items"]


def test_commands_run_in_the_conversations_working_directory(
    api: httpx.Client, tmp_path: Path
) -> None:
    folder = tmp_path / "work"
    base = f"/api/conversations/{create(api, folder)}/bash"
    output = api.post(f"{base}/execute_bash_command", json={"command": "pwd; echo x > made"})
    assert output.status_code == 200, output.text
    assert (output.json()["exit_code"], output.json()["stdout"]) == (0, f"{folder}\n")
    assert (folder / "made").read_text() == "x\n"
    (folder / "sub").mkdir()
    inner = api.post(
        f"{base}/execute_bash_command", json={"command": "pwd", "cwd": str(folder / "sub")}
    ).json()
    assert inner["stdout"] == f"{folder / 'sub'}\n"


def test_a_folder_outside_the_working_directory_is_refused_and_nothing_runs(
    api: httpx.Client, tmp_path: Path
) -> None:
    folder = tmp_path / "work"
    base = f"/api/conversations/{create(api, folder)}/bash"
    outside = tmp_path / "outside"
    outside.mkdir()
    (folder / "link").symlink_to(outside)
    for cwd in (str(outside), str(folder / "link"), f"{folder}/../outside", "relative/dir"):
        for route in ("execute_bash_command", "start_bash_command"):
            answer = api.post(f"{base}/{route}", json={"command": "touch ran", "cwd": cwd})
            assert answer.status_code == 422, (cwd, answer.text)
            assert "cwd" in answer.json()["message"]
    assert search(api, base) == []
    assert not (outside / "ran").exists()
    bad = api.post(f"{base}/start_bash_command", json={"command": "", "timeout": -1})
    assert bad.status_code == 422 and "command" in bad.json()["message"]


def test_each_conversation_keeps_its_own_events(api: httpx.Client, tmp_path: Path) -> None:
    first = f"/api/conversations/{create(api, tmp_path / 'a')}/bash"
    second = f"/api/conversations/{create(api, tmp_path / 'b')}/bash"
    output = api.post(f"{first}/execute_bash_command", json={"command": "echo mine"}).json()
    assert [e["id"] for e in search(api, first, kind__eq="BashOutput")] == [output["id"]]
    assert search(api, second) == []
    assert api.get(f"{second}/bash_events/{output['id']}").status_code == 404
    assert api.get(f"/api/bash/bash_events/{output['id']}").status_code == 404
    assert api.get(f"{first}/bash_events/{output['id']}").json()["stdout"] == "mine\n"
    batch = api.get(f"{first}/bash_events/", params={"event_ids": [output["id"]]}).json()
    assert [e["id"] for e in batch] == [output["id"]]
    assert api.delete(f"{second}/bash_events").json() == {"cleared_count": 0}
    assert api.delete(f"{first}/bash_events").json() == {"cleared_count": 2}
    assert search(api, first) == []


def test_a_conversations_command_can_be_stopped(api: httpx.Client, tmp_path: Path) -> None:
    base = f"/api/conversations/{create(api, tmp_path / 'w')}/bash"
    sleeper = Sleeper()
    command = api.post(
        f"{base}/start_bash_command", json={"command": sleeper.command, "timeout": 600}
    ).json()
    try:
        assert sleeper.started()
        assert api.post(f"{base}/bash_commands/{command['id']}/stop").json() == {"success": True}
        assert sleeper.gone()
        final = [o for o in search(api, base, kind__eq="BashOutput") if o["exit_code"] is not None]
        assert len(final) == 1 and final[0]["command_id"] == command["id"]
    finally:
        sleeper.kill()
    unknown = api.post(f"{base}/bash_commands/{uuid.uuid4()}/stop")
    assert unknown.status_code == 404


def test_the_sandbox_hides_other_conversations_folders(api: httpx.Client, tmp_path: Path) -> None:
    if not api.get("/server_info").json()["sandbox"]["active"]:
        pytest.skip("the agent's processes run without a sandbox here (OH_SANDBOX)")
    other = tmp_path / "other"
    create(api, other)
    (other / "private.txt").write_text("not yours")
    base = f"/api/conversations/{create(api, tmp_path / 'mine')}/bash"
    output = api.post(
        f"{base}/execute_bash_command", json={"command": f"cat {other / 'private.txt'}"}
    ).json()
    assert output["exit_code"] != 0 and "not yours" not in (output["stdout"] or "")


def test_an_unknown_conversation_is_404_and_a_malformed_id_422(api: httpx.Client) -> None:
    for prefix, status in (
        (f"/api/conversations/{uuid.uuid4()}", 404),
        ("/api/conversations/nope", 422),
    ):
        base = f"{prefix}/bash"
        event = uuid.uuid4().hex
        answers = [
            api.post(f"{base}/execute_bash_command", json={"command": "true"}),
            api.post(f"{base}/start_bash_command", json={"command": "true"}),
            api.get(f"{base}/bash_events/search"),
            api.get(f"{base}/bash_events/", params={"event_ids": [event]}),
            api.get(f"{base}/bash_events/{event}"),
            api.delete(f"{base}/bash_events"),
            api.post(f"{base}/bash_commands/{uuid.uuid4()}/stop"),
        ]
        assert [a.status_code for a in answers] == [status] * len(answers), prefix


def test_every_route_needs_the_key(keyed: ServerProcess, api: httpx.Client, tmp_path: Path) -> None:
    base = f"/api/conversations/{create(api, tmp_path / 'w')}/bash"
    with keyed.client(api_key="") as anonymous:
        event = uuid.uuid4().hex
        answers = [
            anonymous.post(f"{base}/execute_bash_command", json={"command": "touch ran"}),
            anonymous.post(f"{base}/start_bash_command", json={"command": "touch ran"}),
            anonymous.get(f"{base}/bash_events/search"),
            anonymous.get(f"{base}/bash_events/", params={"event_ids": [event]}),
            anonymous.get(f"{base}/bash_events/{event}"),
            anonymous.delete(f"{base}/bash_events"),
            anonymous.post(f"{base}/bash_commands/{uuid.uuid4()}/stop"),
            anonymous.delete("/api/bash/bash_events"),
            anonymous.get("/api/bash/bash_events/", params={"event_ids": [event]}),
        ]
    assert [a.status_code for a in answers] == [401] * len(answers)
    assert not (tmp_path / "w" / "ran").exists()


def test_server_wide_commands_in_a_conversations_folder_get_its_sandbox(
    api: httpx.Client, tmp_path: Path
) -> None:
    folder = tmp_path / "owned"
    create(api, folder)
    output = api.post(
        "/api/bash/execute_bash_command", json={"command": "pwd", "cwd": str(folder)}
    ).json()
    assert output["stdout"] == f"{folder}\n"


def test_server_wide_commands_may_not_work_in_the_servers_own_folders(
    api: httpx.Client, keyed: ServerProcess
) -> None:
    if not api.get("/server_info").json()["sandbox"]["active"]:
        pytest.skip("the agent's processes run without a sandbox here (OH_SANDBOX)")
    answer = api.post(
        "/api/bash/execute_bash_command",
        json={"command": "ls", "cwd": str(keyed.conversations)},
    )
    assert answer.status_code == 403 and "cwd" in answer.json()["message"]
