"""The reference's background commands: start_bash_command, bash_events/search, stop."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest
from child_processes import Sleeper

from ..harness import wait_until

pytestmark = pytest.mark.slow


def _outputs(client: httpx.Client, command_id: str, **params: object) -> list[dict]:
    query = {"kind__eq": "BashOutput", "command_id__eq": command_id, **params}
    response = client.get("/api/bash/bash_events/search", params=query)
    assert response.status_code == 200, response.text
    return response.json()["items"]


def test_a_started_command_answers_at_once_and_its_output_is_found_by_search(
    client: httpx.Client, tmp_path: Path
) -> None:
    started = client.post(
        "/api/bash/start_bash_command",
        json={"command": "echo hi; echo oops >&2; exit 3", "cwd": str(tmp_path), "timeout": 30},
    )
    assert started.status_code == 200, started.text
    command = started.json()
    assert command["kind"] == "BashCommand"

    final = wait_until(lambda: _final(client, command["id"]), what="the command's output")
    assert final["exit_code"] == 3
    outputs = _outputs(client, command["id"])
    # stderr interleaved, as bash prints it
    assert _joined(outputs).splitlines() == ["hi", "oops"]
    assert _outputs(client, command["id"], order__gt=final["order"]) == []


def test_search_filters_by_kind_and_sorts_newest_first(client: httpx.Client) -> None:
    first = client.post("/api/bash/execute_bash_command", json={"command": "echo one"}).json()
    second = client.post("/api/bash/execute_bash_command", json={"command": "echo two"}).json()
    newest = client.get(
        "/api/bash/bash_events/search",
        params={"kind__eq": "BashOutput", "sort_order": "TIMESTAMP_DESC", "limit": 1},
    ).json()
    assert [e["id"] for e in newest["items"]] == [second["id"]]
    assert newest["next_page_id"] is not None
    rest = client.get(
        "/api/bash/bash_events/search",
        params={
            "kind__eq": "BashOutput",
            "sort_order": "TIMESTAMP_DESC",
            "limit": 1,
            "page_id": newest["next_page_id"],
        },
    ).json()
    assert [e["id"] for e in rest["items"]] == [first["id"]]


def test_an_executed_command_answers_the_reference_shape_plus_this_servers_fields(
    client: httpx.Client,
) -> None:
    output = client.post("/api/bash/execute_bash_command", json={"command": "printf hi"}).json()
    assert output["kind"] == "BashOutput"
    assert (output["exit_code"], output["stdout"], output["stderr"]) == (0, "hi", None)
    assert (output["command"], output["timed_out"]) == ("printf hi", False)
    assert client.get(f"/api/bash/bash_events/{output['id']}").json() == output


def test_stopping_an_ended_command_succeeds_and_an_unknown_one_is_404(
    client: httpx.Client,
) -> None:
    output = client.post("/api/bash/execute_bash_command", json={"command": "true"}).json()
    assert client.post(f"/api/bash/bash_commands/{output['command_id']}/stop").json() == {
        "success": True
    }
    assert client.post(f"/api/bash/bash_commands/{uuid.uuid4()}/stop").status_code == 404


def _joined(outputs: list[dict]) -> str:
    return "".join(o["stdout"] or "" for o in sorted(outputs, key=lambda o: o["order"]))


def _final(client: httpx.Client, command_id: str) -> dict | None:
    return next((o for o in _outputs(client, command_id) if o["exit_code"] is not None), None)


def test_output_is_published_while_the_command_runs(client: httpx.Client, tmp_path: Path) -> None:
    gate = tmp_path / "go"
    script = f"echo first; while [ ! -e {gate} ]; do sleep 0.02; done; echo second"
    command = client.post(
        "/api/bash/start_bash_command", json={"command": script, "cwd": str(tmp_path)}
    ).json()

    early = wait_until(
        lambda: [o for o in _outputs(client, command["id"]) if "first" in (o["stdout"] or "")],
        what="the first line while the command still runs",
    )
    assert early[0]["exit_code"] is None  # published before the end
    assert _final(client, command["id"]) is None
    gate.touch()
    final = wait_until(lambda: _final(client, command["id"]), what="the command's end")
    assert final["exit_code"] == 0
    outputs = _outputs(client, command["id"])
    assert [o["order"] for o in outputs] == list(range(len(outputs)))
    assert _joined(outputs) == "first\nsecond\n"
    newer = _outputs(client, command["id"], order__gt=early[0]["order"])
    assert "second" in _joined(newer) and "first" not in _joined(newer)


def test_stopping_a_running_command_kills_its_tree_and_records_its_end(
    client: httpx.Client,
) -> None:
    sleeper = Sleeper()
    command = client.post(
        "/api/bash/start_bash_command",
        json={"command": f"echo started; {sleeper.command} & wait", "timeout": 600},
    ).json()
    try:
        assert sleeper.started()
        stopped = client.post(f"/api/bash/bash_commands/{command['id']}/stop")
        assert stopped.json() == {"success": True}
        final = _final(client, command["id"])  # the stop answers once the end is recorded
        assert final is not None and final["exit_code"] != 0 and final["timed_out"] is False
        assert sleeper.gone()
        again = client.post(f"/api/bash/bash_commands/{command['id']}/stop")
        assert again.status_code == 200  # an ended command: nothing to do
    finally:
        sleeper.kill()


def test_a_command_past_its_timeout_is_killed(client: httpx.Client) -> None:
    command = client.post(
        "/api/bash/start_bash_command", json={"command": "sleep 30", "timeout": 1}
    ).json()
    final = wait_until(lambda: _final(client, command["id"]), what="the command to be killed")
    assert (final["timed_out"], final["exit_code"]) == (True, 124)


def test_batch_get_answers_null_for_unknown_ids(client: httpx.Client) -> None:
    output = client.post("/api/bash/execute_bash_command", json={"command": "true"}).json()
    unknown = uuid.uuid4().hex
    found = client.get(
        "/api/bash/bash_events/", params={"event_ids": [output["id"], unknown]}
    ).json()
    assert [e and e["id"] for e in found] == [output["id"], None]


def test_deleting_the_events_forgets_them(client: httpx.Client) -> None:
    output = client.post("/api/bash/execute_bash_command", json={"command": "true"}).json()
    cleared = client.delete("/api/bash/bash_events").json()
    assert cleared["cleared_count"] >= 2
    assert client.get(f"/api/bash/bash_events/{output['id']}").status_code == 404
    assert client.get("/api/bash/bash_events/search").json()["items"] == []


def test_a_bad_page_id_is_a_400_naming_it(client: httpx.Client) -> None:
    response = client.get("/api/bash/bash_events/search", params={"page_id": "nope"})
    assert response.status_code == 400
    assert "page_id" in response.json()["message"]


def test_a_missing_folder_is_made_and_is_the_commands_only_writable_one(
    client: httpx.Client, tmp_path: Path
) -> None:
    folder = tmp_path / "made" / "deeper"
    output = client.post(
        "/api/bash/execute_bash_command",
        json={"command": "pwd; touch here; touch ../beside", "cwd": str(folder)},
    ).json()
    assert output["stdout"].splitlines()[0] == str(folder)
    assert (folder / "here").exists()
    if client.get("/server_info").json()["sandbox"]["active"]:
        # Beside it the sandbox has its own private /tmp: nothing lands on the host.
        assert not (folder.parent / "beside").exists()
