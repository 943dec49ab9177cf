"""Retries and error classification of `LLM.completion` against the fake OpenAI server."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable

import pytest
from openhands.sdk.llm import (
    LLM,
    LLMAuthenticationError,
    LLMBadRequestError,
    LLMTransientError,
    text_message,
)
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from pydantic import SecretStr

HI = [text_message("user", "hi")]


def _retry_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "openhands.sdk.llm.llm" and "retry" in r.message]


def test_server_error_is_retried_then_succeeds(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.error(500, "boom"), FakeReply.text("recovered")])
    llm = make_llm()

    response = llm.completion(HI)

    assert response.message.text == "recovered"
    assert len(server.requests) == 2
    assert llm.metrics.completions == 1


def test_rate_limit_is_retried_then_succeeds(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.error(429, "slow down"), FakeReply.text("ok")])

    response = make_llm().completion(HI)

    assert response.message.text == "ok"
    assert len(server.requests) == 2


def test_rejected_key_raises_authentication_error_naming_the_setting(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.error(401, "Incorrect API key provided")])

    with pytest.raises(LLMAuthenticationError) as caught:
        make_llm().completion(HI)

    assert "LLM_API_KEY" in str(caught.value)
    assert "api_key" in str(caught.value)
    assert caught.value.model == "openai/agent"


def test_missing_key_fails_at_once_naming_the_setting(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.script("agent", [FakeReply.text("never sent")])

    with pytest.raises(LLMAuthenticationError, match="LLM_API_KEY") as caught:
        make_llm(api_key=None, num_retries=3).completion(HI)

    assert "No API key" in str(caught.value)
    assert server.requests == []


def test_rejected_key_is_not_retried(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.error(401, "bad key"), FakeReply.text("never sent")])

    with pytest.raises(LLMAuthenticationError):
        make_llm(num_retries=3).completion(HI)

    assert len(server.requests) == 1
    assert server.remaining("agent") == 1


def test_forbidden_raises_authentication_error(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.error(403, "not allowed")])

    with pytest.raises(LLMAuthenticationError):
        make_llm().completion(HI)

    assert len(server.requests) == 1


def test_bad_request_raises_bad_request_error_without_retry(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.error(400, "context length exceeded")])

    with pytest.raises(LLMBadRequestError, match="context length exceeded"):
        make_llm().completion(HI)

    assert len(server.requests) == 1


def test_exhausted_retries_raise_transient_error(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM], caplog: pytest.LogCaptureFixture
) -> None:
    server.script("agent", [FakeReply.error(503, "overloaded")] * 3)

    with pytest.raises(LLMTransientError, match="after 2 retries"):
        make_llm(num_retries=2).completion(HI)

    assert len(server.requests) == 3
    assert len(_retry_records(caplog)) == 2


def test_zero_retries_fail_on_the_first_transient_error(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.error(500, "boom"), FakeReply.text("unused")])

    with pytest.raises(LLMTransientError):
        make_llm(num_retries=0).completion(HI)

    assert len(server.requests) == 1


def test_failed_completion_adds_nothing_to_metrics(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.error(400, "no")])
    llm = make_llm()

    with pytest.raises(LLMBadRequestError):
        llm.completion(HI)

    assert llm.metrics.completions == 0


def test_connection_refused_is_retried_then_raises_transient_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    llm = LLM(
        model="openai/agent",
        base_url=f"http://127.0.0.1:{closed_port}/v1",
        api_key=SecretStr("k"),
        num_retries=2,
        retry_min_wait=0.01,
        retry_max_wait=0.02,
        timeout=5.0,
    )

    with pytest.raises(LLMTransientError, match="openai/agent"):
        llm.completion(HI)

    assert len(_retry_records(caplog)) == 2


def test_empty_message_list_is_a_usage_error(make_llm: Callable[..., LLM]) -> None:
    with pytest.raises(ValueError, match="at least one message"):
        make_llm().completion([])


def test_retry_waits_grow_within_the_configured_bounds(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM], caplog: pytest.LogCaptureFixture
) -> None:
    server.script("agent", [FakeReply.error(503, "overloaded")] * 4)

    with pytest.raises(LLMTransientError):
        make_llm(num_retries=3, retry_min_wait=0.04, retry_max_wait=0.1).completion(HI)

    waits = [float(r.message.rsplit(" in ", 1)[1].rstrip("s")) for r in _retry_records(caplog)]
    # Step n waits between half and all of min(max_wait, min_wait * 2**n).
    steps = [0.04, 0.08, 0.1]
    assert len(waits) == 3
    for wait, step in zip(waits, steps, strict=True):
        assert step / 2 - 0.005 <= wait <= step + 0.005
