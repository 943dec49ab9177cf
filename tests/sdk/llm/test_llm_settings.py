"""The reference SDK's LLM settings: which reach litellm, and how (through the fake server)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from openhands.sdk.llm import (
    LLM,
    ImageContent,
    LLMBadRequestError,
    LLMCallContext,
    Message,
    TextContent,
    text_message,
)
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

HI = [text_message("user", "hi")]
PICTURE = [
    Message(
        role="user",
        content=[TextContent(text="what is this?"), ImageContent(image_urls=["https://x/y.png"])],
    )
]


@pytest.fixture
def answering(server: FakeOpenAIServer) -> FakeOpenAIServer:
    """The fake server answering 'ok' to any model."""
    server.set_responder("*", lambda body: FakeReply.text("ok"))
    return server


def test_sampling_seed_headers_and_extra_body_reach_the_provider(
    answering: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    llm = make_llm(
        "gpt-4o-mini",
        top_p=0.5,
        top_k=7,
        seed=42,
        extra_headers={"X-Team": "agents"},
        litellm_extra_body={"route": "blue"},
    )

    llm.completion(HI)

    body = answering.requests[-1]
    assert (body["top_p"], body["top_k"], body["seed"], body["route"]) == (0.5, 7, 42, "blue")
    assert answering.request_headers[-1]["x-team"] == "agents"


def test_reasoning_effort_goes_to_reasoning_models_without_sampling(
    answering: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    make_llm("o3-mini", reasoning_effort="low", top_p=0.3).completion(HI)

    body = answering.requests[-1]
    assert body["reasoning_effort"] == "low"
    assert "temperature" not in body and "top_p" not in body


def test_reasoning_effort_is_not_sent_to_other_models(
    answering: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    make_llm("gpt-4o-mini", reasoning_effort="low").completion(HI)

    assert "reasoning_effort" not in answering.requests[-1]


def test_a_capability_override_sends_reasoning_effort_to_an_unknown_model(
    answering: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    llm = make_llm(
        "house-model",
        reasoning_effort="high",
        capability_overrides={"supports_reasoning_effort": True},
    )

    llm.completion(HI)

    assert answering.requests[-1]["reasoning_effort"] == "high"


def test_drop_params_lets_litellm_drop_what_the_provider_refuses(
    answering: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    make_llm("o3-mini").completion(HI, temperature=0.5)

    assert "temperature" not in answering.requests[-1]


def test_without_drop_params_a_refused_setting_is_a_clear_error(
    answering: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    llm = make_llm("o3-mini", drop_params=False)

    with pytest.raises(LLMBadRequestError, match="drop_params=True"):
        llm.completion(HI, temperature=0.5)


def test_extra_completion_arguments_go_to_litellm(
    answering: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    make_llm("gpt-4o-mini").completion(HI, max_tokens=5, user="me")

    body = answering.requests[-1]
    assert (body["max_tokens"], body["user"]) == (5, "me")


def test_own_token_prices_set_the_cost(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("gpt-4o-mini", [FakeReply.text("x", prompt_tokens=1000, completion_tokens=100)])
    llm = make_llm("gpt-4o-mini", input_cost_per_token=0.001, output_cost_per_token=0.01)

    response = llm.completion(HI)

    assert response.cost == pytest.approx(1.0 + 1.0)
    assert llm.metrics.accumulated_cost == pytest.approx(2.0)


def test_call_context_session_goes_in_a_header(
    answering: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    make_llm().completion(HI, call_context=LLMCallContext(session_id="conv-1"))

    assert answering.request_headers[-1]["x-litellm-session-id"] == "conv-1"


def test_images_are_sent_to_a_model_litellm_does_not_know(
    answering: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    llm = make_llm("house-model")

    llm.completion(PICTURE)

    assert llm.vision_is_active()
    content = answering.requests[-1]["messages"][0]["content"]
    assert [part["type"] for part in content] == ["text", "image_url"]


@pytest.mark.parametrize(
    "settings",
    [
        {"disable_vision": True},
        {"capability_overrides": {"supports_vision": False}},
        {"force_string_serializer": True},
    ],
    ids=["disable_vision", "override", "string_serializer"],
)
def test_images_are_left_out_when_vision_is_off(
    answering: FakeOpenAIServer, make_llm: Callable[..., LLM], settings: dict[str, object]
) -> None:
    make_llm("house-model", **settings).completion(PICTURE)

    assert answering.requests[-1]["messages"][0]["content"] == "what is this?"


def test_a_model_known_to_be_blind_gets_no_images(make_llm: Callable[..., LLM]) -> None:
    llm = make_llm("gpt-3.5-turbo")

    assert not llm.vision_is_active()
    assert llm.format_messages_for_llm(PICTURE)[0]["content"] == "what is this?"


def test_completion_log_records_the_call_without_credentials(
    answering: FakeOpenAIServer, make_llm: Callable[..., LLM], tmp_path: Path, api_key: str
) -> None:
    folder = tmp_path / "completions"
    llm = make_llm(log_completions=True, log_completions_folder=str(folder))

    llm.completion(HI)

    (log,) = folder.glob("*.json")
    record = json.loads(log.read_text())
    assert record["messages"] == [{"role": "user", "content": "hi"}]
    assert record["message"]["content"][0]["text"] == "ok"
    assert record["response"]["choices"][0]["message"]["content"] == "ok"
    assert api_key not in log.read_text()


def test_the_reference_sdks_dump_of_an_llm_loads() -> None:
    dumped = {
        "model": "openai/gpt-4o-mini",
        "reasoning_effort": "high",
        "extended_thinking_budget": 200000,
        "drop_params": True,
        "caching_prompt": True,
        "log_completions_folder": "logs/completions",
        "aws_region_name": None,
        "api_mode": "auto",
        "is_subscription": False,
        "usage_id": "agent",
    }

    llm = LLM.model_validate(dumped)

    assert (llm.usage_id, llm.reasoning_effort) == ("agent", "high")


def test_every_setting_can_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("LLM_TOP_P", "0.2")
    monkeypatch.setenv("LLM_DROP_PARAMS", "false")
    monkeypatch.setenv("LLM_EXTRA_HEADERS", '{"X-Team": "agents"}')

    llm = LLM.load_from_env()

    assert (llm.model, llm.top_p, llm.drop_params) == ("openai/gpt-4o-mini", 0.2, False)
    assert llm.extra_headers == {"X-Team": "agents"}
