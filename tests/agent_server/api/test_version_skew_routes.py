"""Requests from other client versions over HTTP: unknown fields are ignored with one log line
naming them, a known-but-unsupported field is a 422 saying so, a bad known field a 422."""

from __future__ import annotations

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer

from ..harness import ServerProcess, llm_spec, wait_until

pytestmark = pytest.mark.slow


def _body(fake_llm: FakeOpenAIServer, model: str, **extra: object) -> dict[str, object]:
    llm = {**llm_spec(fake_llm, model), "stream_idle_timeout": 300}
    return {"agent": {"kind": "Agent", "llm": llm, "persona": None}, **extra}


def test_unknown_fields_are_ignored_with_one_log_line_naming_them(
    server: ServerProcess, client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    body = _body(fake_llm, agent_model, observability_span_name="x", field_from_2030=1)
    response = client.post("/api/conversations", json=body)

    assert response.status_code == 201, response.text
    line = "agent.llm.stream_idle_timeout, agent.persona, field_from_2030, observability_span_name"
    wait_until(lambda: line in server.log(), what="the log line naming the ignored fields")


def test_a_known_but_unsupported_field_is_a_422_saying_so(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    body = _body(fake_llm, agent_model, worktree=True)
    response = client.post("/api/conversations", json=body)

    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "worktree"]
    assert "not supported by this server yet" in response.json()["message"]


def test_a_bad_known_field_is_still_a_422_naming_it_beside_unknown_ones(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    body = _body(fake_llm, agent_model, max_iterations=0, field_from_2030=1)
    response = client.post("/api/conversations", json=body)

    assert response.status_code == 422
    assert [d["loc"] for d in response.json()["detail"]] == [["body", "max_iterations"]]


def test_a_reference_fork_body_is_honoured(client: httpx.Client, conversation_id: str) -> None:
    wanted = "0f9a7c2e-8b51-4a1f-9d3c-5e6b7a8c9d0e"
    response = client.post(
        f"/api/conversations/{conversation_id}/fork",
        json={"id": wanted, "reset_metrics": False, "title": "copy"},
    )
    assert response.status_code == 201, response.text
    assert (response.json()["id"], response.json()["title"]) == (wanted, "copy")
    again = client.post(f"/api/conversations/{conversation_id}/fork", json={"id": wanted})
    assert again.status_code == 409
    unknown = client.post(
        f"/api/conversations/{conversation_id}/fork", json={"from_event_id": "no-such-event"}
    )
    assert unknown.status_code == 404
