"""`Metrics`: per-call records (in memory, bounded), totals (persisted) and the helpers."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from openhands.sdk.llm import LLM, Metrics, TokenUsage, text_message
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

HI = [text_message("user", "hi")]


def _metrics(*calls: tuple[float, int, int]) -> Metrics:
    metrics = Metrics(usage_id="agent", model_name="m")
    for cost, prompt, completion in calls:
        metrics.add(cost=cost, prompt_tokens=prompt, completion_tokens=completion)
    return metrics


def test_each_completion_adds_one_token_usage_record(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script(
        "agent",
        [
            FakeReply.text("a", prompt_tokens=100, completion_tokens=10),
            FakeReply.text("b", prompt_tokens=200, completion_tokens=20),
        ],
    )
    llm = make_llm()

    first = llm.completion(HI)
    llm.completion(HI)

    usages = llm.metrics.token_usages
    assert [(u.model, u.prompt_tokens, u.completion_tokens) for u in usages] == [
        ("openai/agent", 100, 10),
        ("openai/agent", 200, 20),
    ]
    assert usages[0].response_id == first.id
    assert len(llm.metrics.response_latencies) == 2
    assert first.metrics is not None and first.metrics.accumulated_token_usage is not None
    assert first.metrics.accumulated_token_usage.prompt_tokens == 100


def test_accumulated_token_usage_sums_every_counter() -> None:
    metrics = Metrics()
    metrics.add(cost=0.0, prompt_tokens=10, completion_tokens=2, cache_read_tokens=4)
    metrics.add(cost=0.0, prompt_tokens=5, completion_tokens=1, reasoning_tokens=3)

    total = metrics.accumulated_token_usage

    assert (total.prompt_tokens, total.completion_tokens) == (15, 3)
    assert (total.cache_read_tokens, total.reasoning_tokens) == (4, 3)
    assert total.per_turn_token == 6


def test_records_are_bounded_but_totals_count_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Metrics, "max_records", 3)
    metrics = _metrics(*[(0.1, i, 0) for i in range(5)])

    assert [u.prompt_tokens for u in metrics.token_usages] == [2, 3, 4]
    assert (metrics.completions, metrics.prompt_tokens) == (5, 10)
    assert metrics.accumulated_cost == pytest.approx(0.5)


def test_the_serialized_form_holds_totals_not_records() -> None:
    dumped = _metrics((0.5, 10, 1), (0.25, 20, 2)).model_dump(mode="json")

    assert "token_usages" not in dumped and "costs" not in dumped
    assert dumped["accumulated_token_usage"]["prompt_tokens"] == 30
    assert Metrics.model_validate(dumped).prompt_tokens == 30


def test_reference_shaped_metrics_load_into_the_counters() -> None:
    written = {
        "model_name": "gpt",
        "accumulated_cost": 1.5,
        "accumulated_token_usage": {"prompt_tokens": 70, "completion_tokens": 7},
        "costs": [{"model": "gpt", "cost": 1.5, "timestamp": 1.0}],
        "token_usages": [{"model": "gpt", "prompt_tokens": 70, "completion_tokens": 7}],
    }

    metrics = Metrics.model_validate(written)

    assert (metrics.prompt_tokens, metrics.completion_tokens, metrics.completions) == (70, 7, 1)
    assert metrics.token_usages == [TokenUsage(model="gpt", prompt_tokens=70, completion_tokens=7)]


def test_merge_adds_totals_and_records() -> None:
    mine, theirs = _metrics((1.0, 10, 1)), _metrics((2.0, 20, 2))

    mine.merge(theirs)

    assert (mine.accumulated_cost, mine.prompt_tokens, mine.completions) == (3.0, 30, 2)
    assert len(mine.token_usages) == 2


def test_diff_is_what_was_added_since_a_deep_copy() -> None:
    metrics = _metrics((1.0, 10, 1))
    baseline = metrics.deep_copy()
    metrics.add(cost=0.5, prompt_tokens=5, completion_tokens=1)

    added = metrics.diff(baseline)

    assert (added.accumulated_cost, added.prompt_tokens, added.completions) == (0.5, 5, 1)
    assert [u.prompt_tokens for u in added.token_usages] == [5]
    assert baseline.prompt_tokens == 10


def test_get_gives_the_reference_sdks_dict() -> None:
    got = _metrics((0.5, 10, 1)).get()

    assert set(got) == {
        "accumulated_cost",
        "max_budget_per_task",
        "accumulated_token_usage",
        "costs",
        "response_latencies",
        "token_usages",
    }
    assert got["token_usages"][0]["prompt_tokens"] == 10
