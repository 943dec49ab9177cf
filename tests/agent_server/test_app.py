"""Service routes of a live server: health, info, OpenAPI, the web page, error shapes."""

from __future__ import annotations

import httpx


def test_health_and_alive_answer_ok(client: httpx.Client) -> None:
    assert client.get("/health").json() == {"status": "ok"}
    assert client.get("/alive").json() == {"status": "ok"}


def test_server_info_reports_conversations_and_auth(client: httpx.Client) -> None:
    info = client.get("/server_info").json()
    assert info["auth_enabled"] is False
    assert info["conversations"] >= 0
    assert info["broken_conversations"] == []
    assert info["version"]


def test_openapi_documents_every_route_and_model(client: httpx.Client) -> None:
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    for path in (
        "/api/conversations",
        "/api/conversations/search",
        "/api/conversations/count",
        "/api/conversations/{conversation_id}",
        "/api/conversations/{conversation_id}/run",
        "/api/conversations/{conversation_id}/pause",
        "/api/conversations/{conversation_id}/events",
        "/api/conversations/{conversation_id}/events/search",
        "/api/conversations/{conversation_id}/events/count",
        "/api/conversations/{conversation_id}/events/{event_id}",
        "/api/conversations/{conversation_id}/goal",
        "/api/conversations/{conversation_id}/goal/stop",
        "/api/conversations/{conversation_id}/goal/resume",
        "/health",
        "/alive",
        "/server_info",
    ):
        assert path in paths, path
    schemas = spec["components"]["schemas"]
    for model in (
        "StartConversationRequest",
        "ConversationInfo",
        "ConversationPage",
        "SendMessageRequest",
        "EventPage",
        "StartGoalRequest",
        "GoalStatus",
        "Success",
        "ErrorResponse",
        "MessageEvent",
        "ConversationStateUpdateEvent",
    ):
        assert model in schemas, model
    undocumented = [name for name, schema in schemas.items() if not schema.get("description")]
    assert undocumented == []


def test_index_serves_a_page(client: httpx.Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert "text/html" in response.headers["content-type"]


def test_unknown_conversation_is_404_with_a_message(client: httpx.Client) -> None:
    response = client.get("/api/conversations/00000000-0000-0000-0000-000000000000")
    assert response.status_code == 404
    assert "does not exist" in response.json()["message"]


def test_malformed_conversation_id_is_422_naming_the_path_field(client: httpx.Client) -> None:
    response = client.get("/api/conversations/not-a-uuid")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["path", "conversation_id"]
