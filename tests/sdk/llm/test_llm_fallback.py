"""`FallbackStrategy`: saved profiles tried when the primary LLM keeps failing."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from openhands.sdk.llm import (
    LLM,
    FallbackStrategy,
    LLMBadRequestError,
    LLMProfileStore,
    LLMTransientError,
    text_message,
)
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

HI = [text_message("user", "hi")]


@pytest.fixture
def profiles(tmp_path: Path, make_llm: Callable[..., LLM]) -> Path:
    """Two saved profiles, `backup-1` and `backup-2`, on the fake server (with their key)."""
    folder = tmp_path / "profiles"
    store = LLMProfileStore(folder)
    store.save("backup-1", make_llm("backup-one", num_retries=0), include_secrets=True)
    store.save("backup-2", make_llm("backup-two", num_retries=0), include_secrets=True)
    return folder


def _primary(make_llm: Callable[..., LLM], profiles: Path, *names: str) -> LLM:
    return make_llm(
        "primary",
        num_retries=0,
        fallback_strategy=FallbackStrategy(fallback_llms=list(names), profile_store_dir=profiles),
    )


def test_a_failing_primary_is_answered_by_the_first_working_fallback(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM], profiles: Path
) -> None:
    server.script("primary", [FakeReply.error(503, "overloaded")])
    server.script("backup-one", [FakeReply.error(500, "down too")])
    server.script("backup-two", [FakeReply.text("rescued", prompt_tokens=9, completion_tokens=1)])
    primary = _primary(make_llm, profiles, "backup-1", "backup-2")

    response = primary.completion(HI)

    assert response.message.text == "rescued"
    assert primary.metrics.prompt_tokens == 9  # the fallback's usage counts on the primary
    assert [u.model for u in primary.metrics.token_usages] == ["openai/backup-two"]


def test_each_call_starts_with_the_primary_again(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM], profiles: Path
) -> None:
    server.script("primary", [FakeReply.error(503, "busy"), FakeReply.text("me again")])
    server.script("backup-one", [FakeReply.text("rescued")])
    primary = _primary(make_llm, profiles, "backup-1")

    primary.completion(HI)
    second = primary.completion(HI)

    assert second.message.text == "me again"


def test_when_every_fallback_fails_the_primary_error_is_raised(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM], profiles: Path
) -> None:
    server.script("primary", [FakeReply.error(503, "primary down")])
    server.script("backup-one", [FakeReply.error(503, "backup down")])
    primary = _primary(make_llm, profiles, "backup-1")

    with pytest.raises(LLMTransientError, match="primary down"):
        primary.completion(HI)


def test_a_refused_request_does_not_fall_back(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM], profiles: Path
) -> None:
    server.script("primary", [FakeReply.error(400, "bad request")])
    primary = _primary(make_llm, profiles, "backup-1")

    with pytest.raises(LLMBadRequestError):
        primary.completion(HI)
    assert server.requests_for("backup-one") == []


def test_a_missing_profile_is_logged_and_skipped(
    server: FakeOpenAIServer,
    make_llm: Callable[..., LLM],
    profiles: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR)
    server.script("primary", [FakeReply.error(503, "busy")])
    server.script("backup-two", [FakeReply.text("second choice")])
    primary = _primary(make_llm, profiles, "no-such-profile", "backup-2")

    assert primary.completion(HI).message.text == "second choice"
    assert "no-such-profile" in caplog.text


def test_the_strategy_is_not_serialized_with_the_llm(
    make_llm: Callable[..., LLM], profiles: Path
) -> None:
    primary = _primary(make_llm, profiles, "backup-1")

    assert "fallback_strategy" not in primary.model_dump(mode="json")
