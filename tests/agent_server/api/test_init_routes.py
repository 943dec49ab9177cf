"""/api/init through the app: dormant until the one init, then ready, and ready after a restart."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from openhands.agent_server.app import create_app
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.services.sealing import KEY_FILE_NAME

from ..harness import ServerProcess

pytestmark = pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.UnsupportedFieldAttributeWarning"
)

BOOTSTRAP = "warm-pool-bootstrap-key-" + "w" * 32
USER_SESSION = "user-session-key-after-init"
INIT_KEY = {"X-Init-API-Key": BOOTSTRAP}


@pytest.fixture(autouse=True)
def _restore_env() -> Iterator[None]:
    """An init sets process environment variables: put the environment back after each test."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def _app(root: Path, **settings: str) -> TestClient:
    config = ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(root / "pool" / "conversations"),
            "OH_PRELOAD_LITELLM": "false",
            "OH_ALLOWED_HOSTS": "testserver",
            "OH_DEFERRED_INIT": "true",
            "OH_SECRET_KEY": BOOTSTRAP,
            **settings,
        }
    )
    return TestClient(create_app(config))


def _init_body(root: Path) -> dict:
    return {
        "session_api_keys": [USER_SESSION],
        "conversations_path": str(root / "user" / "conversations"),
        "workspace_path": str(root / "user" / "workspaces"),
        "env": {"LLM_API_KEY": "sk-delivered"},
        "telemetry": {"mode": "disabled"},  # a reference field: accepted, ignored
    }


def test_a_dormant_server_answers_probes_and_503_elsewhere(tmp_path: Path) -> None:
    with _app(tmp_path) as client:
        state = client.get("/api/init")
        health = client.get("/health")
        gated = [
            client.get("/api/conversations/search"),
            client.get("/api/settings"),
            client.get("/server_info"),
            client.get("/v1/models"),
        ]

    assert state.status_code == 200 and state.json() == {"state": "dormant", "error": None}
    assert health.status_code == 200
    assert [g.status_code for g in gated] == [503] * 4
    assert "POST /api/init" in gated[0].json()["message"]


def test_init_needs_the_bootstrap_key(tmp_path: Path) -> None:
    with _app(tmp_path) as client:
        missing = client.post("/api/init", json=_init_body(tmp_path))
        wrong = client.post(
            "/api/init", json=_init_body(tmp_path), headers={"X-Init-API-Key": "guess"}
        )
        state = client.get("/api/init").json()["state"]

    assert missing.status_code == 401 and wrong.status_code == 401
    assert state == "dormant"


def test_bad_init_input_is_422_naming_the_field_and_stays_dormant(tmp_path: Path) -> None:
    with _app(tmp_path) as client:
        bad_env = client.post("/api/init", json={"env": {"1BAD": "x"}}, headers=INIT_KEY)
        bad_setting = client.post(
            "/api/init", json={"env": {"OH_MAX_BODY_BYTES": "huge"}}, headers=INIT_KEY
        )
        state = client.get("/api/init").json()["state"]

    assert bad_env.status_code == 422 and bad_env.json()["detail"][0]["loc"] == ["body", "env"]
    assert bad_setting.status_code == 422 and "OH_MAX_BODY_BYTES" in bad_setting.json()["message"]
    assert state == "dormant"


def test_init_makes_it_ready_with_the_delivered_keys_and_refuses_a_second(tmp_path: Path) -> None:
    with _app(tmp_path) as client:
        ready = client.post("/api/init", json=_init_body(tmp_path), headers=INIT_KEY)
        again = client.post("/api/init", json=_init_body(tmp_path), headers=INIT_KEY)
        without_key = client.get("/api/conversations/count")
        with_key = client.get(
            "/api/conversations/count", headers={"X-Session-API-Key": USER_SESSION}
        )
        info = client.get("/server_info", headers={"X-Session-API-Key": USER_SESSION}).json()

    assert ready.status_code == 200 and ready.json() == {"state": "ready", "error": None}
    assert again.status_code == 400
    assert without_key.status_code == 401 and with_key.json() == 0
    assert info["auth_enabled"] is True and info["llm_defaults"]["api_key_set"] is True
    assert (tmp_path / "user" / "conversations").is_dir()


def test_a_restart_after_init_comes_back_ready(tmp_path: Path) -> None:
    with _app(tmp_path) as client:
        client.post("/api/init", json=_init_body(tmp_path), headers=INIT_KEY)
        created = client.post(
            "/api/conversations",
            json={"agent": {"kind": "Agent", "llm": {"model": "openai/none"}}},
            headers={"X-Session-API-Key": USER_SESSION},
        )
    os.environ.pop("LLM_API_KEY", None)  # a new process: only the record knows it

    with _app(tmp_path) as client:
        state = client.get("/api/init").json()
        count = client.get("/api/conversations/count", headers={"X-Session-API-Key": USER_SESSION})
        again = client.post("/api/init", json=_init_body(tmp_path), headers=INIT_KEY)

    assert created.status_code == 201
    assert state["state"] == "ready" and count.json() == 1 and again.status_code == 400


def test_without_oh_secret_key_the_key_files_key_is_the_bootstrap_key(tmp_path: Path) -> None:
    config = ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(tmp_path / "pool" / "conversations"),
            "OH_PRELOAD_LITELLM": "false",
            "OH_ALLOWED_HOSTS": "testserver",
            "OH_DEFERRED_INIT": "true",
        }
    )
    with TestClient(create_app(config)) as client:
        key = (tmp_path / "pool" / KEY_FILE_NAME).read_text().strip()
        guessed = client.post("/api/init", json={}, headers={"X-Init-API-Key": "x" * 43})
        ready = client.post("/api/init", json={}, headers={"X-Init-API-Key": key})

    assert guessed.status_code == 401 and ready.json()["state"] == "ready"


def test_a_server_without_deferred_init_has_no_init(tmp_path: Path) -> None:
    with _app(tmp_path, OH_DEFERRED_INIT="false") as client:
        assert client.get("/api/init").status_code == 404
        assert client.post("/api/init", json={}, headers=INIT_KEY).status_code == 404


@pytest.mark.slow
def test_a_warm_pool_server_process_lives_through_init_and_a_crash(tmp_path: Path) -> None:
    env = {"OH_DEFERRED_INIT": "true", "OH_SECRET_KEY": BOOTSTRAP}
    (tmp_path / "pool").mkdir()
    server = ServerProcess(tmp_path / "pool" / "conversations", env=env).start()
    user = {"X-Session-API-Key": USER_SESSION}
    try:
        dormant = httpx.get(f"{server.url}/api/init").json()["state"]
        gated = httpx.get(f"{server.url}/api/conversations/search").status_code
        ready = httpx.post(f"{server.url}/api/init", json=_init_body(tmp_path), headers=INIT_KEY)
        created = httpx.post(
            f"{server.url}/api/conversations",
            json={"agent": {"kind": "Agent", "llm": {"model": "openai/none"}}},
            headers=user,
        )
        server.kill()  # no shutdown work: the record alone must bring it back

        server = ServerProcess(tmp_path / "pool" / "conversations", env=env).start()
        after = httpx.get(f"{server.url}/api/init").json()["state"]
        count = httpx.get(f"{server.url}/api/conversations/count", headers=user).json()
        refused = httpx.get(f"{server.url}/api/conversations/count").status_code
    finally:
        server.stop()

    assert (dormant, gated) == ("dormant", 503)
    assert ready.json()["state"] == "ready" and created.status_code == 201
    assert (after, count, refused) == ("ready", 1, 401)
