"""Which configured models make the server preload litellm (litellm_preload.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.agent_server.config import ServerConfig
from openhands.agent_server.litellm_preload import models_needing_litellm
from openhands.agent_server.services.sealing import SecretBox
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.llm import LLM
from pydantic import SecretStr


def _config(tmp_path: Path, **env: str) -> ServerConfig:
    return ServerConfig.from_env(
        {"OH_CONVERSATIONS_PATH": str(tmp_path / "conversations"), "OH_SECRET_KEY": "k" * 32, **env}
    )


@pytest.mark.parametrize(
    ("env", "needing"),
    [
        ({}, []),
        ({"LLM_MODEL": "openai/gpt-4o-mini"}, []),
        ({"LLM_MODEL": "qwen2.5", "LLM_BASE_URL": "http://127.0.0.1:8080/v1"}, []),
        ({"LLM_MODEL": "hosted_vllm/qwen3", "LLM_BASE_URL": "http://x/v1"}, []),
        ({"LLM_MODEL": "anthropic/claude-sonnet-4-5"}, ["anthropic/claude-sonnet-4-5"]),
        ({"LLM_MODEL": "openrouter/openai/gpt-4o"}, ["openrouter/openai/gpt-4o"]),
    ],
)
def test_only_a_model_litellm_carries_asks_for_the_preload(
    tmp_path: Path, env: dict[str, str], needing: list[str]
) -> None:
    assert models_needing_litellm(_config(tmp_path, **env), None) == needing


def test_stored_profiles_and_settings_count_too(tmp_path: Path) -> None:
    config = _config(tmp_path, LLM_MODEL="openai/gpt-4o")
    settings = ServerSettings(config, SecretBox.from_config(config))
    settings.load()
    settings.profiles.save(
        "claude", LLM(model="anthropic/claude-x", api_key=SecretStr("k")), include_secrets=True
    )
    settings.profiles.save(
        "local", LLM(model="openai/local", base_url="http://x/v1"), include_secrets=True
    )

    assert models_needing_litellm(config, settings) == ["anthropic/claude-x"]
