"""Which copies of an LLM share its metrics: the same usage slot does, another does not."""

from __future__ import annotations

import copy
from collections.abc import Callable

from openhands.sdk.llm import LLM, Metrics, text_message
from openhands.sdk.testing import FakeOpenAIServer, FakeReply, TestLLM

HI = [text_message("user", "hi")]


def test_a_copy_under_the_same_usage_id_counts_into_the_same_metrics() -> None:
    llm = TestLLM.from_messages([text_message("assistant", "a")], costs=[0.5], usage_id="judge")

    quiet = llm.model_copy(update={"stream": False})
    quiet.completion(HI)

    assert quiet.metrics is llm.metrics
    assert llm.metrics.accumulated_cost == 0.5


def test_a_copy_under_another_usage_id_starts_fresh() -> None:
    llm = TestLLM.from_messages([text_message("assistant", "a")], costs=[0.5], usage_id="agent")

    condenser = llm.model_copy(update={"usage_id": "condenser"})
    condenser.completion(HI)

    assert condenser.metrics is not llm.metrics
    assert (condenser.metrics.usage_id, condenser.metrics.accumulated_cost) == ("condenser", 0.5)
    assert llm.metrics.accumulated_cost == 0.0


def test_reset_metrics_gives_fresh_counts_and_leaves_the_original_alone() -> None:
    llm = TestLLM.from_messages([text_message("assistant", "a")] * 2, costs=[0.25, 0.25])
    llm.completion(HI)

    demo = llm.model_copy()
    demo.reset_metrics()
    demo.completion(HI)

    assert (llm.metrics.completions, demo.metrics.completions) == (1, 1)


def test_restore_metrics_continues_saved_counts() -> None:
    llm = TestLLM.from_messages([text_message("assistant", "a")], costs=[1.0])
    saved = Metrics(usage_id="default", accumulated_cost=2.0, completions=3)

    llm.restore_metrics(saved)
    llm.completion(HI)

    assert llm.metrics is saved
    assert (saved.accumulated_cost, saved.completions) == (3.0, 4)


def test_a_deep_copy_gets_independent_metrics(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("x", prompt_tokens=3)])
    llm = make_llm()

    twin = copy.deepcopy(llm)
    twin.completion(HI)

    assert twin.metrics.prompt_tokens == 3
    assert llm.metrics.prompt_tokens == 0
