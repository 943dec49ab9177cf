"""The API key never leaks through serialization, repr, errors or logs."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from openhands.sdk.llm import LLM, LLMAuthenticationError, text_message
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

HI = [text_message("user", "hi")]


def test_json_dump_drops_the_key(make_llm: Callable[..., LLM], api_key: str) -> None:
    dumped = make_llm().model_dump_json()

    assert api_key not in dumped
    assert LLM.model_validate_json(dumped).api_key is None


def test_repr_and_str_hide_the_key(make_llm: Callable[..., LLM], api_key: str) -> None:
    llm = make_llm()

    assert api_key not in repr(llm)
    assert api_key not in str(llm)


def test_expose_secrets_context_round_trips_the_key(
    make_llm: Callable[..., LLM], api_key: str
) -> None:
    dumped = make_llm().model_dump_json(context={"expose_secrets": True})

    restored = LLM.model_validate_json(dumped)

    assert restored.api_key is not None
    assert restored.api_key.get_secret_value() == api_key


def test_json_mode_dict_drops_the_key(make_llm: Callable[..., LLM], api_key: str) -> None:
    assert make_llm().model_dump(mode="json")["api_key"] is None


def test_logs_output_and_errors_never_show_the_key(
    server: FakeOpenAIServer,
    make_llm: Callable[..., LLM],
    api_key: str,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="LiteLLM")
    server.script(
        "agent",
        [FakeReply.error(500, "boom"), FakeReply.text("ok"), FakeReply.error(401, "bad key")],
    )
    llm = make_llm()

    llm.completion(HI)
    with pytest.raises(LLMAuthenticationError) as caught:
        llm.completion(HI)

    captured = capsys.readouterr()
    assert caplog.records  # the retry was logged
    assert api_key not in caplog.text
    assert all(api_key not in record.getMessage() for record in caplog.records)
    assert api_key not in captured.out + captured.err
    assert api_key not in str(caught.value)
