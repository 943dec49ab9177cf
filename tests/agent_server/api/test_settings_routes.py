"""/api/settings and /api/settings/secrets through the app: keys, bad input, restart, rotation."""

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

SESSION = "settings-session-key"
OLD = "old-sealing-key-" + "o" * 40
NEW = "new-sealing-key-" + "n" * 40
LLM_KEY = "sk-stored-llm-6d2a"
SECRET = "tok-stored-secret-9f41"


def _config(root: Path, **settings: str) -> ServerConfig:
    return ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(root / "conversations"),
            "OH_WORKSPACE_PATH": str(root / "workspaces"),
            "OH_PRELOAD_LITELLM": "false",
            "OH_ALLOWED_HOSTS": "testserver",
            "OH_SESSION_API_KEYS": SESSION,
            "OH_SECRET_KEY": OLD,
            **settings,
        }
    )


def _client(root: Path, **settings: str) -> TestClient:
    return TestClient(create_app(_config(root, **settings)), headers={"X-Session-API-Key": SESSION})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with _client(tmp_path) as http:
        yield http


def _store_llm(client: TestClient) -> dict:
    answer = client.patch(
        "/api/settings",
        json={"agent_settings_diff": {"llm": {"model": "openai/main", "api_key": LLM_KEY}}},
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_every_route_needs_the_session_key(client: TestClient) -> None:
    bare = {"X-Session-API-Key": ""}
    calls = [
        client.get("/api/settings", headers=bare),
        client.patch("/api/settings", json={"misc_settings_diff": {}}, headers=bare),
        client.get("/api/settings/secrets", headers=bare),
        client.put("/api/settings/secrets", json={"name": "A", "value": "v"}, headers=bare),
        client.get("/api/settings/secrets/A", headers=bare),
        client.delete("/api/settings/secrets/A", headers=bare),
    ]

    assert [c.status_code for c in calls] == [401] * len(calls)


def test_patch_stores_the_llm_and_answers_without_its_key(client: TestClient) -> None:
    answer = _store_llm(client)
    read = client.get("/api/settings", headers={"X-Expose-Secrets": "plaintext"}).json()

    for body in (answer, read):
        assert body["llm_api_key_is_set"] is True
        assert body["agent_settings"]["llm"]["model"] == "openai/main"
        assert body["agent_settings"]["llm"]["api_key"] is None
    assert LLM_KEY not in str(answer) + str(read)


def test_a_bad_diff_is_422_naming_the_field(client: TestClient) -> None:
    answer = client.patch(
        "/api/settings", json={"agent_settings_diff": {"llm": {"model": "m", "temperature": 9}}}
    )

    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == [
        "body",
        "agent_settings_diff",
        "llm",
        "temperature",
    ]


@pytest.mark.parametrize(
    ("method", "url", "body", "field"),
    [
        ("patch", "/api/settings", {"llm": {"model": 5, "api_key": LLM_KEY}}, "model"),
        ("patch", "/api/settings", {"llm": {"model": "m", "api_key": [LLM_KEY]}}, "api_key"),
        ("put", "/api/settings/secrets", {"name": "1X", "value": LLM_KEY}, "name"),
        ("put", "/api/settings/secrets", {"name": "X", "value": [LLM_KEY]}, "value"),
        ("put", "/api/settings/secrets", {"name": "X", "value": LLM_KEY * 4}, "value"),
        (
            "post",
            "/api/profiles/p",
            {"llm": {"model": "m", "api_key": LLM_KEY, "top_p": "x"}},
            "top_p",
        ),
    ],
)
def test_a_refused_write_names_the_field_and_never_echoes_the_secret(
    tmp_path: Path, method: str, url: str, body: dict, field: str
) -> None:
    if url == "/api/settings":
        body = {"agent_settings_diff": body}
    with _client(tmp_path, OH_MAX_SECRET_BYTES="64") as client:
        answer = getattr(client, method)(url, json=body)
        after = "".join(
            client.get(route).text
            for route in ("/api/settings", "/api/settings/secrets", "/api/profiles")
        )

    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"][-1] == field
    assert LLM_KEY not in answer.text
    # nothing half-stored
    assert '"llm"' not in after and '"X"' not in after and '"name":"p"' not in after


def test_a_patch_with_nothing_to_change_is_400(client: TestClient) -> None:
    answer = client.patch("/api/settings", json={})

    assert answer.status_code == 400 and "agent_settings_diff" in answer.json()["message"]


def test_an_unknown_active_profile_is_422_naming_it(client: TestClient) -> None:
    answer = client.patch("/api/settings", json={"active_profile": "nope"})

    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == [
        "body",
        "active_profile",
    ]


def test_secrets_are_listed_and_described_never_answered(client: TestClient) -> None:
    put = client.put(
        "/api/settings/secrets",
        json={"name": "PROJECT_TOKEN", "value": SECRET, "description": "deploys"},
    )
    listed = client.get("/api/settings/secrets")
    one = client.get("/api/settings/secrets/PROJECT_TOKEN")

    assert put.status_code == 200 and put.json() == {
        "name": "PROJECT_TOKEN",
        "description": "deploys",
    }
    assert listed.json() == {"secrets": [{"name": "PROJECT_TOKEN", "description": "deploys"}]}
    assert one.status_code == 200 and one.json()["name"] == "PROJECT_TOKEN"
    assert SECRET not in put.text + listed.text + one.text


def test_a_deleted_secret_is_404(client: TestClient) -> None:
    client.put("/api/settings/secrets", json={"name": "GONE", "value": "v"})

    assert client.delete("/api/settings/secrets/GONE").json() == {"deleted": True}
    assert client.get("/api/settings/secrets/GONE").status_code == 404
    assert client.delete("/api/settings/secrets/GONE").status_code == 404


@pytest.mark.parametrize("name", ["123_invalid", "invalid-name", "", "A" * 65])
def test_bad_secret_names_are_422_naming_the_name(client: TestClient, name: str) -> None:
    answer = client.put("/api/settings/secrets", json={"name": name, "value": "v"})

    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body", "name"]


def test_a_bad_name_in_the_path_is_422(client: TestClient) -> None:
    answer = client.get("/api/settings/secrets/bad-name")

    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == ["path", "name"]


def test_settings_and_secrets_survive_a_restart_with_a_rotated_key(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        _store_llm(client)
        client.put("/api/settings/secrets", json={"name": "PROJECT_TOKEN", "value": SECRET})

    with _client(tmp_path, OH_SECRET_KEY=f"{NEW},{OLD}") as client:
        assert client.get("/api/settings").json()["llm_api_key_is_set"] is True
    # the old key is dropped: everything was sealed again with the new one at that start
    with _client(tmp_path, OH_SECRET_KEY=NEW) as client:
        settings = client.get("/api/settings")
        stores = client.app.state.server_settings  # type: ignore[attr-defined]
        secret = stores.secrets.value("PROJECT_TOKEN")

    assert settings.status_code == 200 and settings.json()["llm_api_key_is_set"] is True
    assert secret == SECRET


def test_settings_sealed_with_a_lost_key_are_409_saying_what_to_do(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        _store_llm(client)

    with _client(tmp_path, OH_SECRET_KEY=NEW) as client:
        answer = client.get("/api/settings")

    assert answer.status_code == 409
    assert answer.json()["detail"] == "settings_unreadable"
    assert "restore the key" in answer.json()["message"]


def test_a_disk_that_refuses_the_write_is_503_and_nothing_changes(tmp_path: Path) -> None:
    with _client(tmp_path) as client:
        _store_llm(client)
        folder = tmp_path / "settings"
        for entry in folder.iterdir():
            if entry.is_dir():
                for inner in entry.iterdir():
                    inner.unlink()
                entry.rmdir()
            else:
                entry.unlink()
        folder.rmdir()
        folder.write_text("a file where the folder was")

        answer = client.patch("/api/settings", json={"misc_settings_diff": {"a": 1}})
        put = client.put("/api/settings/secrets", json={"name": "A", "value": "v"})
        read = client.get("/api/settings")

    assert answer.status_code == 503 and put.status_code == 503
    assert read.json()["misc_settings"] == {} and read.json()["llm_api_key_is_set"] is True


def test_a_settings_folder_that_cannot_be_made_does_not_stop_the_server(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the settings folder's parent should be")

    with _client(tmp_path, OH_SETTINGS_PATH=str(blocker / "settings")) as client:
        read = client.get("/api/settings")
        patch = client.patch("/api/settings", json={"misc_settings_diff": {"a": 1}})
        profile = client.post("/api/profiles/fast", json={"llm": {"model": "openai/m"}})
        conversations = client.get("/api/conversations/count")

    assert read.status_code == 200 and read.json()["llm_api_key_is_set"] is False
    assert patch.status_code == 503 and profile.status_code == 503
    assert conversations.json() == 0
