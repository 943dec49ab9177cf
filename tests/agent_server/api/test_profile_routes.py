"""/api/profiles through the app: keys never answered, bad names, limits, restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from openhands.agent_server.app import create_app
from openhands.agent_server.config import ServerConfig

pytestmark = pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.UnsupportedFieldAttributeWarning"
)

SESSION = "profiles-session-key"
KEY = "sk-profile-route-0c3d"
LLM = {"model": "openai/fast", "api_key": KEY, "base_url": "http://127.0.0.1:9/v1"}


def _client(root: Path, **settings: str) -> TestClient:
    config = ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(root / "conversations"),
            "OH_PRELOAD_LITELLM": "false",
            "OH_ALLOWED_HOSTS": "testserver",
            "OH_SESSION_API_KEYS": SESSION,
            "OH_SECRET_KEY": "profiles-sealing-key-" + "p" * 40,
            **settings,
        }
    )
    return TestClient(create_app(config), headers={"X-Session-API-Key": SESSION})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with _client(tmp_path) as http:
        yield http


def test_a_saved_profile_is_listed_and_read_without_its_key(client: TestClient) -> None:
    saved = client.post("/api/profiles/fast", json={"llm": LLM, "include_secrets": True})
    listed = client.get("/api/profiles")
    one = client.get("/api/profiles/fast", headers={"X-Expose-Secrets": "plaintext"})

    assert saved.status_code == 201 and saved.json()["name"] == "fast"
    assert listed.json()["profiles"][0] == {
        "name": "fast",
        "model": "openai/fast",
        "base_url": "http://127.0.0.1:9/v1",
        "provider_connection_id": None,
        "provider_connection_broken": False,
        "api_key_set": True,
    }
    assert one.json()["config"]["api_key"] is None and one.json()["api_key_set"] is True
    assert KEY not in saved.text + listed.text + one.text


def test_routes_need_the_session_key(client: TestClient) -> None:
    bare = {"X-Session-API-Key": "wrong"}
    calls = [
        client.get("/api/profiles", headers=bare),
        client.get("/api/profiles/fast", headers=bare),
        client.post("/api/profiles/fast", json={"llm": LLM}, headers=bare),
        client.delete("/api/profiles/fast", headers=bare),
    ]

    assert [c.status_code for c in calls] == [401] * 4


def test_bad_input_is_422_naming_the_field(client: TestClient) -> None:
    bad_name = client.post("/api/profiles/-bad", json={"llm": LLM})
    no_model = client.post("/api/profiles/fast", json={"llm": {"api_key": KEY}})

    assert bad_name.status_code == 422 and bad_name.json()["detail"][0]["loc"] == ["path", "name"]
    assert no_model.status_code == 422
    assert no_model.json()["detail"][0]["loc"] == ["body", "llm", "model"]
    assert KEY not in no_model.text  # input is never echoed back


def test_an_unknown_profile_is_404_and_deleting_it_changes_nothing(client: TestClient) -> None:
    assert client.get("/api/profiles/none").status_code == 404
    assert client.delete("/api/profiles/none").status_code == 200


def test_the_profile_limit_is_409(tmp_path: Path) -> None:
    with _client(tmp_path, OH_MAX_PROFILES="1") as client:
        client.post("/api/profiles/one", json={"llm": LLM})
        answer = client.post("/api/profiles/two", json={"llm": LLM})

    assert answer.status_code == 409 and "OH_MAX_PROFILES" in answer.json()["message"]


def test_profiles_survive_a_restart_and_delete_clears_the_active_one(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        client.post("/api/profiles/fast", json={"llm": LLM})
        client.patch("/api/settings", json={"active_profile": "fast"})

    with _client(tmp_path) as client:
        before = client.get("/api/profiles").json()
        settings = client.get("/api/settings").json()
        client.delete("/api/profiles/fast")
        after = client.get("/api/profiles").json()

    assert before["active_profile"] == "fast" and before["profiles"][0]["api_key_set"]
    assert settings["agent_settings"]["llm"]["model"] == "openai/fast"
    assert settings["llm_api_key_is_set"] is True
    assert after == {"profiles": [], "active_profile": None}


def test_activate_makes_the_profile_the_settings_llm(client: TestClient) -> None:
    client.post("/api/profiles/fast", json={"llm": LLM})

    answer = client.post("/api/profiles/fast/activate")
    settings = client.get("/api/settings").json()
    unknown = client.post("/api/profiles/slow/activate")

    assert answer.status_code == 200 and answer.json()["llm_applied"] is True
    assert settings["active_profile"] == "fast" and settings["llm_api_key_is_set"] is True
    assert settings["agent_settings"]["llm"]["model"] == "openai/fast"
    assert unknown.status_code == 404
