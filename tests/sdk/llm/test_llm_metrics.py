"""Cost and token metrics of `LLM` completions, per `usage_id`."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from openhands.sdk.llm import LLM, text_message
from openhands.sdk.llm.llm import _import_litellm
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

HI = [text_message("user", "hi")]


def test_known_model_cost_comes_from_usage(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("gpt-4o-mini", [FakeReply.text("x", prompt_tokens=1000, completion_tokens=500)])
    prompt_price, completion_price = _import_litellm().cost_per_token(
        model="gpt-4o-mini", prompt_tokens=1000, completion_tokens=500
    )

    response = make_llm("gpt-4o-mini").completion(HI)

    assert response.cost > 0
    assert response.cost == pytest.approx(prompt_price + completion_price)


def test_metrics_accumulate_cost_and_tokens(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script(
        "gpt-4o-mini",
        [
            FakeReply.text("a", prompt_tokens=100, completion_tokens=10),
            FakeReply.text("b", prompt_tokens=200, completion_tokens=20),
        ],
    )
    llm = make_llm("gpt-4o-mini", usage_id="agent")

    first = llm.completion(HI)
    second = llm.completion(HI)

    metrics = llm.metrics
    assert metrics.usage_id == "agent"
    assert metrics.completions == 2
    assert (metrics.prompt_tokens, metrics.completion_tokens) == (300, 30)
    assert metrics.total_tokens == 330
    assert metrics.accumulated_cost == pytest.approx(first.cost + second.cost)
    assert metrics.accumulated_cost > 0


def test_unknown_model_costs_nothing_and_warns_nothing(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    server.script("no-such-model", [FakeReply.text("x", prompt_tokens=40, completion_tokens=2)])
    llm = make_llm("no-such-model")

    response = llm.completion(HI)

    assert response.cost == 0.0
    assert (llm.metrics.prompt_tokens, llm.metrics.completion_tokens) == (40, 2)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_copy_for_has_fresh_metrics_and_its_own_usage_id(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("x", prompt_tokens=7, completion_tokens=1)] * 2)
    agent_llm = make_llm(usage_id="agent")
    agent_llm.completion(HI)

    judge = agent_llm.copy_for("goal-judge", temperature=0.5)

    assert judge.usage_id == "goal-judge"
    assert judge.metrics.usage_id == "goal-judge"
    assert judge.metrics.completions == 0
    assert (judge.model, judge.base_url, judge.api_key) == (
        agent_llm.model,
        agent_llm.base_url,
        agent_llm.api_key,
    )
    assert judge.temperature == 0.5
    judge.completion(HI)
    assert agent_llm.metrics.completions == 1
    assert judge.metrics.prompt_tokens == 7
