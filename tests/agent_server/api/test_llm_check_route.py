"""POST /api/llm/check: the page's check of a model before it creates a conversation, with the
key a conversation would get (stored settings, a profile), naming the URL and the field to fix."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from openhands.agent_server.app import create_app
from openhands.agent_server.config import ServerConfig
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

pytestmark = pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.UnsupportedFieldAttributeWarning"
)

SESSION = "llm-check-session"
STORED_KEY = "sk-stored-check-51c0"


@pytest.fixture
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        server.script("served", [FakeReply.text("hi")])
        yield server


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    config = ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(tmp_path / "conversations"),
            "OH_WORKSPACE_PATH": str(tmp_path / "workspaces"),
            "OH_PRELOAD_LITELLM": "false",
            "OH_ALLOWED_HOSTS": "testserver",
            "OH_SESSION_API_KEYS": SESSION,
        }
    )
    with TestClient(create_app(config), headers={"X-Session-API-Key": SESSION}) as http:
        yield http


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_served_model_is_valid(client: TestClient, fake: FakeOpenAIServer) -> None:
    llm = {"model": "openai/served", "base_url": fake.base_url, "api_key": "k"}

    answer = client.post("/api/llm/check", json={"llm": llm})

    assert answer.status_code == 200 and answer.json() == {"valid": True, "error": None}
    assert fake.requests == []  # no tokens spent


def test_a_wrong_base_url_names_the_url_and_the_field(client: TestClient) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"

    answer = client.post(
        "/api/llm/check", json={"llm": {"model": "openai/x", "base_url": url, "api_key": "k"}}
    )

    body = answer.json()
    assert answer.status_code == 200 and body["valid"] is False
    assert body["error"]["type"] == "LLMUnreachableError"
    assert url in body["error"]["message"] and "the Base URL field" in body["error"]["message"]


def test_a_model_without_a_provider_names_the_model_field(client: TestClient) -> None:
    llm = {"model": "qwen2.5-coder", "api_key": "k"}

    body = client.post("/api/llm/check", json={"llm": llm}).json()

    assert body["valid"] is False and "'openai/qwen2.5-coder'" in body["error"]["message"]
    assert "the Model field" in body["error"]["message"]


def test_the_stored_key_is_used_without_being_sent(
    client: TestClient, fake: FakeOpenAIServer
) -> None:
    fake.require_api_key(STORED_KEY, "served")
    stored = {"model": "openai/served", "base_url": fake.base_url, "api_key": STORED_KEY}
    saved = client.patch("/api/settings", json={"agent_settings_diff": {"llm": stored}})
    assert saved.status_code == 200

    keyless = {"model": "openai/served", "base_url": fake.base_url}
    answer = client.post("/api/llm/check", json={"llm": keyless})

    assert answer.json() == {"valid": True, "error": None}
    assert STORED_KEY not in answer.text


def test_a_profile_is_checked_by_name(client: TestClient, fake: FakeOpenAIServer) -> None:
    llm = {"model": "openai/not-served", "base_url": fake.base_url, "api_key": "k"}
    assert client.post("/api/profiles/mine", json={"llm": llm}).status_code == 201

    body = client.post("/api/llm/check", json={"llm_profile": "mine"}).json()

    assert body["valid"] is False and body["error"]["type"] == "LLMModelNotFoundError"
    assert "served" in body["error"]["message"]


def test_bad_requests_name_the_field(client: TestClient) -> None:
    assert client.post("/api/llm/check", json={}).status_code == 422
    unknown = client.post("/api/llm/check", json={"llm_profile": "nobody"})
    assert unknown.status_code == 422 and "nobody" in unknown.text
    assert (
        client.post(
            "/api/llm/check", json={"llm": {"model": "x"}}, headers={"X-Session-API-Key": ""}
        ).status_code
        == 401
    )
