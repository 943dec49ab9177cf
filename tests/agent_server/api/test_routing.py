"""CheckedRoute: a JSON body holding a lone UTF-16 surrogate is a 422 naming the field."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
from openhands.agent_server.api.json_body import count_items, inspect_body
from openhands.sdk.testing import FakeOpenAIServer

from ..harness import ServerProcess, llm_spec

LONE = "\\ud800"
"""The JSON escape of a lone high surrogate (no low half follows)."""


def _post_raw(client: httpx.Client, path: str, body: str) -> httpx.Response:
    # httpx cannot encode a lone surrogate itself, so the escape is written by hand.
    headers = {"content-type": "application/json"}
    return client.post(path, content=body.encode(), headers=headers)


def _events(client: httpx.Client, cid: str) -> list[dict[str, Any]]:
    return client.get(f"/api/conversations/{cid}/events/search").json()["items"]


def test_message_with_a_lone_surrogate_is_422_naming_the_text(
    client: httpx.Client, conversation_id: str
) -> None:
    body = '{"content": [{"type": "text", "text": "hi ' + LONE + '"}]}'
    response = _post_raw(client, f"/api/conversations/{conversation_id}/events", body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", "content", 0, "text"]


def test_a_refused_message_leaves_the_log_unchanged(
    client: httpx.Client, conversation_id: str
) -> None:
    before = _events(client, conversation_id)
    body = '{"content": [{"type": "text", "text": "' + LONE + '"}]}'
    _post_raw(client, f"/api/conversations/{conversation_id}/events", body)
    assert _events(client, conversation_id) == before


def test_an_escaped_surrogate_pair_is_accepted_as_its_character(
    client: httpx.Client, conversation_id: str
) -> None:
    body = json.dumps({"content": [{"type": "text", "text": "ok \U0001f4a5"}]})
    assert "\\ud83d\\udca5" in body  # json.dumps escapes the emoji as a surrogate pair
    response = _post_raw(client, f"/api/conversations/{conversation_id}/events", body)
    assert response.status_code == 200, response.text
    params = {"kind": "MessageEvent"}
    items = client.get(f"/api/conversations/{conversation_id}/events/search", params=params)
    assert items.json()["items"][-1]["llm_message"]["content"][0]["text"] == "ok \U0001f4a5"


def test_goal_objective_with_a_lone_surrogate_is_422_and_starts_no_goal(
    client: httpx.Client, conversation_id: str
) -> None:
    body = '{"objective": "' + LONE + '"}'
    response = _post_raw(client, f"/api/conversations/{conversation_id}/goal", body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", "objective"]
    assert client.get(f"/api/conversations/{conversation_id}/goal").json() is None


def test_conversation_spec_with_a_lone_surrogate_is_422_naming_the_field(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> None:
    spec = {"agent": {"kind": "Agent", "llm": llm_spec(fake_llm, agent_model)}}
    body = json.dumps(spec).replace('"test-key"', '"key' + LONE + '"')
    response = _post_raw(client, "/api/conversations", body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", "agent", "llm", "api_key"]


def test_a_lone_surrogate_in_a_key_names_its_object(
    client: httpx.Client, make_conversation: Callable[..., str]
) -> None:
    cid = make_conversation()
    body = '{"content": [{"type": "text", "text": "x", "' + LONE + '": 1}]}'
    response = _post_raw(client, f"/api/conversations/{cid}/events", body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", "content", 0]


def test_the_server_log_has_no_error_for_a_refused_surrogate(
    server: ServerProcess, client: httpx.Client, conversation_id: str
) -> None:
    body = '{"objective": "' + LONE + '"}'
    _post_raw(client, f"/api/conversations/{conversation_id}/goal", body)
    assert "PydanticSerializationError" not in server.log()


def test_a_body_that_is_not_json_is_left_to_fastapi() -> None:
    found = inspect_body(b'{"text": "' + LONE.encode() + b'"', 100)
    assert not found.parsed and found.surrogate_at is None


def test_an_escaped_backslash_before_u_is_not_a_surrogate() -> None:
    found = inspect_body(b'{"text": "\\\\ud800"}', 100)
    assert found.parsed and found.surrogate_at is None


def test_items_are_counted_outside_strings_only() -> None:
    body = json.dumps({"a": [1, 2, {"b": 'x, y [z] {"q", r'}], "c": "\\"}).encode()
    assert count_items(body, 0) == 6  # {, [ and { containers; three commas between items


def test_counting_stops_once_past_the_limit() -> None:
    body = json.dumps({f"k{i}": i for i in range(10_000)}).encode()
    assert count_items(body, 100) == 101
    assert inspect_body(body, 100).too_many_items
