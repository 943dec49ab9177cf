"""What `create_app` does when it starts: the settings reach the agent's processes."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from openhands.agent_server.app import create_app
from openhands.agent_server.config import ServerConfig
from openhands.sdk.workspace import agent_environment

from .harness import wait_until

# FastAPI builds each body field's validator on the first request, with its parameter name as
# an alias, which pydantic 2.12 warns about (the same happens on a real server, in its log).
pytestmark = pytest.mark.filterwarnings(
    "ignore::pydantic.warnings.UnsupportedFieldAttributeWarning"
)


def _config(root: Path, **settings: str) -> ServerConfig:
    return ServerConfig.from_env(
        {
            "OH_CONVERSATIONS_PATH": str(root / "conversations"),
            "OH_WORKSPACE_PATH": str(root / "workspaces"),
            "OH_PRELOAD_LITELLM": "false",
            "OH_ALLOWED_HOSTS": "testserver",  # the test client's Host
            **settings,
        }
    )


def test_the_configured_agent_env_reaches_the_agents_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Withheld from the agent by default (a *_TOKEN); the setting passes it on purpose.
    monkeypatch.setenv("DEPLOY_TOKEN", "pass-me-on")
    monkeypatch.delenv("OH_AGENT_ENV", raising=False)
    work = tmp_path / "work"
    seen = work / "seen.txt"  # in the workspace: the one folder a sandboxed hook may write
    hooks = {"UserPromptSubmit": [{"hooks": [{"command": "printenv DEPLOY_TOKEN > seen.txt"}]}]}
    body = {
        "agent": {"kind": "Agent", "llm": {"model": "openai/none"}},
        "hook_config": hooks,
        "workspace": {"kind": "LocalWorkspace", "working_dir": str(work)},
    }
    app = create_app(_config(tmp_path, OH_AGENT_ENV="DEPLOY_TOKEN"))
    with TestClient(app) as client:
        cid = client.post("/api/conversations", json=body).json()["id"]
        message = {"content": [{"type": "text", "text": "hello"}]}
        assert client.post(f"/api/conversations/{cid}/events", json=message).is_success
    assert wait_until(seen.exists, what="the hook") and seen.read_text().strip() == "pass-me-on"


def test_stopping_the_app_leaves_the_process_wide_agent_env_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "secret")
    monkeypatch.delenv("OH_AGENT_ENV", raising=False)
    with TestClient(create_app(_config(tmp_path, OH_AGENT_ENV="DEPLOY_TOKEN"))):
        assert agent_environment().get("DEPLOY_TOKEN") == "secret"
    assert "DEPLOY_TOKEN" not in agent_environment()


def test_the_goal_backend_is_the_apps_and_every_conversation_driver_uses_it(
    tmp_path: Path,
) -> None:
    from openhands.agent_server.temporal.backend import TemporalGoalBackend

    agent = {"kind": "Agent", "llm": {"model": "openai/unused", "api_key": "k"}}
    goal = {"objective": "anything"}
    # Nothing listens on port 9: a goal handed to this backend cannot start.
    config = _config(tmp_path, OH_GOAL_BACKEND="temporal", OH_TEMPORAL_ADDRESS="127.0.0.1:9")
    with TestClient(create_app(config)) as client:
        assert isinstance(client.app.state.goal_backend, TemporalGoalBackend)  # type: ignore[attr-defined]
        cid = client.post("/api/conversations", json={"agent": agent}).json()["id"]
        refused = client.post(f"/api/conversations/{cid}/goal", json=goal)
        assert refused.status_code == 409 and "handed to its backend" in refused.text
        assert client.get(f"/api/conversations/{cid}/goal").json()["status"] == "interrupted"
    with TestClient(create_app(_config(tmp_path / "builtin"))) as client:
        assert client.app.state.goal_backend is None  # type: ignore[attr-defined]
