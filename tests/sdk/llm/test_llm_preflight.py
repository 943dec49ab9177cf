"""`check_llm`: before any round, a model's server that is down, refuses the key or does not
serve the model, a model name without a provider and an OpenAI endpoint without a key are
named, with the URL and the cause."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from openhands.sdk.llm import (
    LLM,
    LLMAuthenticationError,
    LLMConfigurationError,
    LLMModelNotFoundError,
    LLMUnreachableError,
)
from openhands.sdk.llm.preflight import check_llm
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from pydantic import SecretStr

KEY = SecretStr("any-key")


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens once the socket is closed


def test_a_refused_connection_names_the_url(monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"

    with pytest.raises(LLMUnreachableError) as caught:
        check_llm(LLM(model="openai/x", base_url=url, api_key=SecretStr("k")))

    message = str(caught.value)
    assert url in message and "connection refused" in message and "LLM_BASE_URL" in message


def test_a_refused_key_names_the_url_and_the_setting(server: FakeOpenAIServer) -> None:
    server.require_api_key("right")

    with pytest.raises(LLMAuthenticationError) as caught:
        llm = LLM(model="openai/x", base_url=server.base_url, api_key=SecretStr("wrong"))
        check_llm(llm, key_flag="--llm-api-key or LLM_API_KEY")

    message = str(caught.value)
    assert server.base_url in message and "HTTP 401" in message
    assert "refused the API key" in message and "--llm-api-key or LLM_API_KEY" in message


def test_an_openai_endpoint_without_any_key_is_named_before_a_request(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    with pytest.raises(LLMConfigurationError) as caught:
        check_llm(LLM(model="openai/x", base_url=server.base_url), key_flag="the API key field")

    message = str(caught.value)
    assert server.base_url in message and "the API key field" in message
    assert "any value" in message  # a server that checks no key still needs one sent
    assert server.requests == []


def test_a_key_the_server_needs_but_was_not_sent_says_none_was_given(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.require_api_key("right")
    monkeypatch.setenv("OPENAI_API_KEY", "from-the-environment")  # litellm's, not the check's

    with pytest.raises(LLMAuthenticationError, match="no API key was given"):
        check_llm(LLM(model="openai/x", base_url=server.base_url))


def test_a_model_without_a_provider_prefix_says_which_name_to_give() -> None:
    with pytest.raises(LLMConfigurationError) as caught:
        check_llm(LLM(model="qwen2.5-coder", api_key=SecretStr("k")), model_flag="the Model field")

    message = str(caught.value)
    assert "'openai/qwen2.5-coder'" in message and "the Model field" in message


def test_a_bare_model_name_at_an_openai_compatible_server_needs_no_prefix(
    server: FakeOpenAIServer,
) -> None:
    server.script("qwen2.5-coder", [FakeReply.text("hi")])

    check_llm(LLM(model="qwen2.5-coder", base_url=server.base_url, api_key=KEY))


def test_a_known_model_without_a_prefix_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")

    check_llm(LLM(model="gpt-4o-mini"))


def test_a_model_the_server_does_not_serve_is_named_with_what_it_serves(
    server: FakeOpenAIServer,
) -> None:
    server.script("served-model", [FakeReply.text("hi")])

    with pytest.raises(LLMModelNotFoundError) as caught:
        check_llm(LLM(model="openai/typo-model", base_url=server.base_url, api_key=KEY))

    message = str(caught.value)
    assert "'openai/typo-model'" in message and "served-model" in message
    assert server.base_url in message


def test_a_served_model_passes(server: FakeOpenAIServer) -> None:
    server.script("served-model", [FakeReply.text("hi")])

    check_llm(LLM(model="openai/served-model", base_url=server.base_url, api_key=KEY))

    assert server.requests == []  # the check spends no tokens


def test_a_server_that_lists_no_models_or_has_no_list_passes(server: FakeOpenAIServer) -> None:
    check_llm(LLM(model="openai/anything", base_url=server.base_url, api_key=KEY))  # no models
    missing = server.base_url + "/no-such-path"
    check_llm(LLM(model="openai/anything", base_url=missing, api_key=KEY))  # 404


def test_a_provider_without_a_key_anywhere_says_what_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    with pytest.raises(LLMConfigurationError, match=r"LLM_API_KEY.*OPENAI_API_KEY"):
        check_llm(LLM(model="openai/gpt-4o-mini"))

    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    check_llm(LLM(model="openai/gpt-4o-mini"))
