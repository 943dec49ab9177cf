"""The server's LLM_MODEL / LLM_BASE_URL / LLM_API_KEY fill what a request's LLM leaves out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from openhands.agent_server.config import ServerConfig
from openhands.sdk import LLM
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from .harness import ServerProcess, unique, wait_until

SERVER_KEY = "sk-from-the-server-env"


@pytest.fixture(scope="module")
def model() -> str:
    return unique("env-model")


@pytest.fixture(scope="module")
def env_server(
    tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeOpenAIServer, model: str
) -> Iterator[ServerProcess]:
    env = {
        "LLM_MODEL": f"openai/{model}",
        "LLM_BASE_URL": fake_llm.base_url,
        "LLM_API_KEY": SERVER_KEY,
    }
    process = ServerProcess(tmp_path_factory.mktemp("env") / "conversations", env=env).start()
    yield process
    process.stop()


def test_config_reads_the_llm_variables() -> None:
    config = ServerConfig.from_env(
        {"LLM_MODEL": "openai/m", "LLM_BASE_URL": "http://x", "LLM_API_KEY": "k"}
    )
    assert (config.llm_model, config.llm_base_url) == ("openai/m", "http://x")
    assert config.llm_api_key is not None and config.llm_api_key.get_secret_value() == "k"


def test_base_url_is_only_given_to_the_servers_model() -> None:
    config = ServerConfig.from_env(
        {"LLM_MODEL": "openai/m", "LLM_BASE_URL": "http://x", "LLM_API_KEY": "k"}
    )
    other = LLM(model="anthropic/other")
    config.fill_llm(other)
    assert other.base_url is None
    # It calls Anthropic's own endpoint, not LLM_BASE_URL: the key is not for it.
    assert other.api_key is None


def _filled(env: dict[str, str], **llm: str) -> bool:
    """Whether the server's key is given to an LLM with these fields."""
    target = LLM(**llm)  # type: ignore[arg-type]
    ServerConfig.from_env({"LLM_API_KEY": "k", **env}).fill_llm(target)
    return target.api_key is not None


@pytest.mark.parametrize(
    ("env", "llm", "given"),
    [
        # With LLM_BASE_URL: that URL only (however it is spelled), whatever the model.
        (
            {"LLM_BASE_URL": "http://h:1/v1"},
            {"model": "openai/a", "base_url": "http://H:1/v1/"},
            True,
        ),
        (
            {"LLM_BASE_URL": "http://h:1/v1"},
            {"model": "openai/a", "base_url": "http://h:2/v1"},
            False,
        ),
        ({"LLM_BASE_URL": "http://h:1/v1"}, {"model": "openai/a"}, False),
        (
            {"LLM_BASE_URL": "http://h:1/v1", "LLM_MODEL": "openai/a"},
            {"model": "openai/a"},
            True,  # filled with LLM_BASE_URL first
        ),
        # Without it: no URL at all, and LLM_MODEL's provider when that is set.
        ({}, {"model": "openai/a"}, True),
        ({}, {"model": "openai/a", "base_url": "http://127.0.0.1:9/v1"}, False),
        ({}, {"model": "ollama/a", "ollama_base_url": "http://127.0.0.1:9"}, False),
        ({}, {"model": "bedrock/a", "aws_bedrock_runtime_endpoint": "http://127.0.0.1:9"}, False),
        ({"LLM_MODEL": "anthropic/x"}, {"model": "anthropic/y"}, True),
        ({"LLM_MODEL": "anthropic/x"}, {"model": "openai/y"}, False),
        ({"LLM_MODEL": "anthropic/x"}, {"model": "y", "custom_llm_provider": "openai"}, False),
        ({"LLM_MODEL": "gpt-4o"}, {"model": "gpt-4o"}, True),
        ({"LLM_MODEL": "gpt-4o"}, {"model": "o3"}, False),
    ],
)
def test_the_servers_key_goes_only_where_it_is_configured_for(
    env: dict[str, str], llm: dict[str, str], given: bool
) -> None:
    assert _filled(env, **llm) is given


def test_a_key_in_the_request_is_kept() -> None:
    config = ServerConfig.from_env({"LLM_API_KEY": "server"})
    llm = LLM(model="openai/m", api_key="mine")  # type: ignore[arg-type]
    config.fill_llm(llm)
    assert llm.api_key is not None and llm.api_key.get_secret_value() == "mine"


def test_server_info_offers_the_model_without_the_key(
    env_server: ServerProcess, model: str
) -> None:
    with env_server.client() as http:
        defaults = http.get("/server_info").json()["llm_defaults"]
    assert defaults == {
        "model": f"openai/{model}",
        "base_url": defaults["base_url"],
        "api_key_set": True,
    }
    assert defaults["base_url"].startswith("http://127.0.0.1")


@pytest.mark.slow
def test_a_conversation_naming_only_the_model_runs_with_the_servers_key(
    env_server: ServerProcess, fake_llm: FakeOpenAIServer, model: str
) -> None:
    fake_llm.script(model, [FakeReply.text("hello from the env model")])
    body = {
        "agent": {"kind": "Agent", "llm": {"model": f"openai/{model}", "num_retries": 0}},
        "initial_message": {"content": [{"type": "text", "text": "hi"}]},
    }
    with env_server.client() as http:
        created = http.post("/api/conversations", json=body)
        assert created.status_code == 201, created.text
        cid = created.json()["id"]
        wait_until(
            lambda: http.get(f"/api/conversations/{cid}").json()["execution_status"] == "finished",
            what="the run",
        )
    sent = [
        headers
        for body, headers in zip(fake_llm.requests, fake_llm.request_headers, strict=True)
        if body.get("model") == model
    ]
    assert sent[-1]["authorization"] == f"Bearer {SERVER_KEY}"
    state_files = list(Path(env_server.conversations).glob("*/base_state.json"))
    assert state_files and all(SERVER_KEY not in f.read_text() for f in state_files)


def test_no_llm_variables_means_no_defaults(server: ServerProcess) -> None:
    info = httpx.get(f"{server.url}/server_info").json()
    assert info["llm_defaults"] == {"model": None, "base_url": None, "api_key_set": False}
