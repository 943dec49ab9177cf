"""Service routes of a live server: health, info, OpenAPI, the web page, error shapes."""

from __future__ import annotations

import uuid
from html.parser import HTMLParser

import httpx
import pytest


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


class _Resources(HTMLParser):
    """Collects the URLs of a page's scripts, styles and icons, and its inline scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline_scripts = 0
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script":
            if values.get("src"):
                self.urls.append(values["src"] or "")
            else:
                self._in_script = True
        elif tag == "link" and values.get("href"):
            self.urls.append(values["href"] or "")

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline_scripts += 1


def resources(html: str) -> _Resources:
    parser = _Resources()
    parser.feed(html)
    return parser


@pytest.mark.parametrize("page", ["/docs", "/"])
def test_page_loads_only_files_this_server_serves(client: httpx.Client, page: str) -> None:
    found = resources(client.get(page).text)
    assert found.urls
    for url in found.urls:
        if url.startswith("data:"):
            continue
        assert url.startswith("/") and not url.startswith("//"), url
        response = client.get(url)
        assert response.status_code == 200, url


@pytest.mark.parametrize("page", ["/docs", "/"])
def test_page_has_no_inline_script(client: httpx.Client, page: str) -> None:
    assert resources(client.get(page).text).inline_scripts == 0


def test_docs_start_swagger_ui_on_this_servers_openapi(client: httpx.Client) -> None:
    script = client.get("/docs/init.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert '"/openapi.json"' in script.text


def test_redoc_is_off_rather_than_loaded_from_a_cdn(client: httpx.Client) -> None:
    assert client.get("/redoc").status_code == 404


def test_server_info_has_a_boot_id(client: httpx.Client) -> None:
    boot_id = client.get("/server_info").json()["boot_id"]
    assert uuid.UUID(boot_id)
    assert client.get("/server_info").json()["boot_id"] == boot_id
