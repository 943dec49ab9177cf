"""RemoteWorkspace's settings helpers against a live server: the LLM comes without its key and
the server puts the stored key back when a conversation or a goal's judge uses it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from live_server import LiveServer, Models
from openhands.sdk import Agent
from openhands.sdk.event import MessageEvent
from openhands.sdk.llm import TextContent
from openhands.sdk.remote import RemoteConversation, RemoteWorkspace
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from pydantic import SecretStr
from waits import EVENT_WAIT

SESSION = "workspace-settings-session"
SETTINGS_KEY = "sk-from-settings-31aa"
PROFILE_KEY = "sk-from-profile-8c02"
JUDGE_KEY = "sk-judge-profile-5d7e"


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server with a session key and a sealing key, shared by the module."""
    env = {"OH_SECRET_KEY": "workspace-settings-sealing-" + "w" * 32}
    live = LiveServer(tmp_path_factory.mktemp("server"), api_keys=SESSION, env=env)
    yield live.start()
    live.stop()


@pytest.fixture
def rest(keyed_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=keyed_server.url, headers=keyed_server.headers()) as client:
        yield client


@pytest.fixture
def workspace(keyed_server: LiveServer, tmp_path: Path) -> RemoteWorkspace:
    return RemoteWorkspace(
        host=keyed_server.url, api_key=SecretStr(SESSION), working_dir=str(tmp_path / "project")
    )


def _llm_spec(fake: FakeOpenAIServer, model: str, key: str) -> dict[str, object]:
    return {"model": f"openai/{model}", "base_url": fake.base_url, "api_key": key, "num_retries": 0}


def _answers(conversation: RemoteConversation) -> list[str]:
    return [
        part.text
        for event in conversation.state.events
        if isinstance(event, MessageEvent) and event.source == "agent"
        for part in event.llm_message.content
        if isinstance(part, TextContent)
    ]


def test_get_llm_brings_no_key_and_the_conversation_gets_the_stored_one(
    workspace: RemoteWorkspace, rest: httpx.Client, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    spec = _llm_spec(fake_llm, models.agent, SETTINGS_KEY)
    rest.patch("/api/settings", json={"agent_settings_diff": {"llm": spec}})
    fake_llm.require_api_key(SETTINGS_KEY, models.agent)  # a wrong or missing key: 401
    fake_llm.script(models.agent, [FakeReply.text("4")])

    llm = workspace.get_llm()
    conversation = RemoteConversation(Agent(llm=llm), workspace)
    try:
        conversation.send_message("What is 2 + 2?")
        conversation.run()
        answers = _answers(conversation)
    finally:
        conversation.close()

    assert llm.api_key is None and llm.model == f"openai/{models.agent}"
    assert answers == ["4"]


def test_a_profile_llm_and_a_profile_judge_get_their_keys_on_the_server(
    workspace: RemoteWorkspace, rest: httpx.Client, fake_llm: FakeOpenAIServer, models: Models
) -> None:
    rest.post(
        f"/api/profiles/{models.agent}",
        json={"llm": _llm_spec(fake_llm, models.agent, PROFILE_KEY)},
    )
    rest.post(
        f"/api/profiles/{models.judge}", json={"llm": _llm_spec(fake_llm, models.judge, JUDGE_KEY)}
    )
    fake_llm.require_api_key(PROFILE_KEY, models.agent)
    fake_llm.require_api_key(JUDGE_KEY, models.judge)
    fake_llm.script(models.agent, [FakeReply.text("proved")])
    done = {"score": 1.0, "complete": True, "missing": ""}
    fake_llm.script(models.judge, [FakeReply.text(json.dumps(done))])

    agent_llm = workspace.get_llm(profile_name=models.agent)
    judge_llm = workspace.get_llm(profile_name=models.judge)
    conversation = RemoteConversation(Agent(llm=agent_llm), workspace)
    try:
        conversation.start_goal("prove it", judge_llm=judge_llm, max_iterations=2)
        status = conversation.wait_for_goal(timeout=EVENT_WAIT)
    finally:
        conversation.close()

    assert agent_llm.usage_id == f"profile:{models.agent}" and agent_llm.api_key is None
    assert status.status == "complete" and status.iteration == 1
    assert fake_llm.remaining(models.judge) == 0


def test_get_llm_explains_what_is_missing(workspace: RemoteWorkspace, rest: httpx.Client) -> None:
    rest.patch("/api/settings", json={"agent_settings_diff": {"llm": None}})

    with pytest.raises(FileNotFoundError, match="no-such-profile"):
        workspace.get_llm(profile_name="no-such-profile")
    with pytest.raises(ValueError, match="stores no LLM"):
        workspace.get_llm()


def test_get_secrets_gives_lookups_carrying_the_session_key(
    workspace: RemoteWorkspace, rest: httpx.Client, keyed_server: LiveServer
) -> None:
    rest.put(
        "/api/settings/secrets", json={"name": "DEPLOY_TOKEN", "value": "v", "description": "d"}
    )
    rest.put("/api/settings/secrets", json={"name": "OTHER_TOKEN", "value": "w"})

    secrets = workspace.get_secrets(names=["DEPLOY_TOKEN"])

    assert list(secrets) == ["DEPLOY_TOKEN"]
    lookup = secrets["DEPLOY_TOKEN"]
    assert lookup.url == f"{keyed_server.url}/api/settings/secrets/DEPLOY_TOKEN"
    assert lookup.headers["X-Session-API-Key"].get_secret_value() == SESSION
    assert lookup.description == "d"


def test_get_mcp_config_leaves_the_secret_values_on_the_server(
    workspace: RemoteWorkspace, rest: httpx.Client
) -> None:
    server = {"command": "gh-mcp", "args": ["--ro"], "env": {"GITHUB_TOKEN": "ghp-secret"}}
    rest.patch("/api/settings", json={"agent_settings_diff": {"mcp_config": {"gh": server}}})

    found = workspace.get_mcp_config()

    assert list(found) == ["gh"]
    assert found["gh"].command == "gh-mcp" and found["gh"].args == ["--ro"]
    assert not found["gh"].env
