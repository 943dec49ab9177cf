"""Configuring an `LLM`: from the environment, validation, and litellm's import settings."""

from __future__ import annotations

import logging
import os

import pytest
from openhands.sdk.llm import LLM, LLMConfigurationError
from openhands.sdk.llm.llm import _import_litellm
from pydantic import SecretStr, ValidationError

ENV_VARS = ("LLM_MODEL", "LLM_API_KEY", "LLM_BASE_URL")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The LLM_* variables unset for the duration of a test."""
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_from_env_without_model_names_every_variable(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(LLMConfigurationError) as caught:
        LLM.from_env()

    for name in ENV_VARS:
        assert name in str(caught.value)


def test_configuration_error_is_a_value_error(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError):
        LLM.from_env()


def test_from_env_reads_model_key_and_base_url(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("LLM_MODEL", "openai/gpt-4o-mini")
    clean_env.setenv("LLM_API_KEY", "sk-env")
    clean_env.setenv("LLM_BASE_URL", "http://127.0.0.1:9/v1")

    llm = LLM.from_env(usage_id="judge", num_retries=1)

    assert llm.model == "openai/gpt-4o-mini"
    assert llm.api_key is not None and llm.api_key.get_secret_value() == "sk-env"
    assert llm.base_url == "http://127.0.0.1:9/v1"
    assert (llm.usage_id, llm.num_retries) == ("judge", 1)


def test_from_env_leaves_key_and_base_url_unset_when_absent(
    clean_env: pytest.MonkeyPatch,
) -> None:
    clean_env.setenv("LLM_MODEL", "openai/gpt-4o-mini")

    llm = LLM.from_env()

    assert (llm.api_key, llm.base_url) == (None, None)


def test_unknown_field_is_ignored_with_a_log_line_naming_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="openhands.sdk.llm.llm"):
        llm = LLM(model="openai/x", max_tokens=5, stream_idle_timeout=300)  # type: ignore[call-arg]

    assert "max_tokens" not in llm.model_dump()
    assert "max_tokens, stream_idle_timeout" in caplog.text


def test_defaults_are_the_reference_sdks_retries_and_timeout() -> None:
    llm = LLM(model="openai/x")
    assert (llm.num_retries, llm.timeout) == (5, 300.0)


def test_an_azure_model_gets_the_reference_sdks_api_version_unless_given() -> None:
    assert LLM(model="azure/gpt-4o").api_version == "2024-12-01-preview"
    assert LLM(model="azure/gpt-4o", api_version="2025-01-01").api_version == "2025-01-01"
    assert LLM(model="openai/gpt-4o").api_version is None


@pytest.mark.parametrize("key", ["", "  ", SecretStr("")])
def test_an_empty_api_key_is_no_key(key: object) -> None:
    assert LLM(model="openai/x", api_key=key).api_key is None  # type: ignore[arg-type]


def test_negative_retries_are_rejected() -> None:
    with pytest.raises(ValidationError, match="num_retries"):
        LLM(model="openai/x", num_retries=-1)


def test_litellm_import_keeps_price_map_local_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LITELLM_LOCAL_MODEL_COST_MAP", raising=False)

    _import_litellm()

    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"


def test_litellm_import_respects_the_users_price_map_choice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "False")
    monkeypatch.setenv("LITELLM_MODE", "DEV")

    _import_litellm()

    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "False"
    assert os.environ["LITELLM_MODE"] == "DEV"


def test_blank_model_is_rejected() -> None:
    with pytest.raises(ValidationError, match="model"):
        LLM(model="")


def test_max_wait_below_min_wait_is_rejected() -> None:
    with pytest.raises(ValidationError, match="retry_max_wait"):
        LLM(model="openai/x", retry_min_wait=5.0, retry_max_wait=1.0)


def test_from_env_reads_whether_tools_go_in_the_prompt(clean_env: pytest.MonkeyPatch) -> None:
    monkeypatch = clean_env
    monkeypatch.setenv("LLM_MODEL", "openai/local")
    monkeypatch.setenv("LLM_NATIVE_TOOL_CALLING", "false")
    assert LLM.from_env().native_tool_calling is False
    monkeypatch.setenv("LLM_NATIVE_TOOL_CALLING", "yes")
    assert LLM.from_env().native_tool_calling is True
    monkeypatch.setenv("LLM_NATIVE_TOOL_CALLING", "maybe")
    with pytest.raises(LLMConfigurationError, match="LLM_NATIVE_TOOL_CALLING='maybe'"):
        LLM.from_env()
