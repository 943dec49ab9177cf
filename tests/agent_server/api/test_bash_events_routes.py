"""The reference's background commands: start_bash_command, bash_events/search, stop."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest

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

    wait_until(lambda: _outputs(client, command["id"]), what="the command's output")
    [output] = _outputs(client, command["id"])
    assert (output["exit_code"], output["order"]) == (3, 0)
    assert output["stdout"].splitlines() == ["hi", "oops"]  # stderr interleaved, as bash prints
    assert _outputs(client, command["id"], order__gt=0) == []


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


def test_stopping_a_running_command_is_409_saying_it_ends_at_its_timeout(
    client: httpx.Client,
) -> None:
    command = client.post(
        "/api/bash/start_bash_command", json={"command": "sleep 30", "timeout": 1}
    ).json()
    refused = client.post(f"/api/bash/bash_commands/{command['id']}/stop")
    assert refused.status_code == 409
    assert "timeout" in refused.json()["message"]
    wait_until(lambda: _outputs(client, command["id"]), what="the command to be killed")
    assert _outputs(client, command["id"])[0]["timed_out"] is True


def test_a_bad_page_id_is_a_400_naming_it(client: httpx.Client) -> None:
    response = client.get("/api/bash/bash_events/search", params={"page_id": "nope"})
    assert response.status_code == 400
    assert "page_id" in response.json()["message"]
