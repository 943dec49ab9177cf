"""`LLMRegistry`: LLM objects by usage_id, each with its own metrics."""

from __future__ import annotations

import pytest
from openhands.sdk.llm import LLM, LLMRegistry, RegistryEvent
from openhands.sdk.llm.llm_registry import DuplicateUsageIdError, LLMNotRegisteredError


def _llm(usage_id: str) -> LLM:
    return LLM(model="openai/x", usage_id=usage_id)


def test_get_returns_the_very_object_that_was_added() -> None:
    registry = LLMRegistry()
    agent = _llm("agent")

    registry.add(agent)

    assert registry.get("agent") is agent
    assert registry.list_usage_ids() == ["agent"]
    assert dict(registry.usage_to_llm) == {"agent": agent}


def test_a_taken_usage_id_is_refused() -> None:
    registry = LLMRegistry()
    registry.add(_llm("agent"))

    with pytest.raises(DuplicateUsageIdError, match="'agent' already exists in registry") as caught:
        registry.add(_llm("agent"))
    assert isinstance(caught.value, ValueError)


def test_an_unknown_usage_id_names_the_registered_ones() -> None:
    registry = LLMRegistry()
    registry.add(_llm("agent"))

    with pytest.raises(KeyError) as caught:
        registry.get("judge")
    assert isinstance(caught.value, LLMNotRegisteredError)
    assert "'judge' not found in registry (registered: agent)" in str(caught.value)


def test_the_subscriber_hears_of_each_added_llm() -> None:
    registry = LLMRegistry()
    heard: list[RegistryEvent] = []
    registry.subscribe(heard.append)
    agent = _llm("agent")

    registry.add(agent)

    assert [event.llm for event in heard] == [agent]
    assert heard[0].llm is agent


def test_a_failing_subscriber_does_not_stop_the_add(caplog: pytest.LogCaptureFixture) -> None:
    registry = LLMRegistry()

    def broken(event: RegistryEvent) -> None:
        raise RuntimeError("no")

    registry.subscribe(broken)
    with caplog.at_level("WARNING", logger="openhands.sdk.llm.llm_registry"):
        registry.add(_llm("agent"))

    assert registry.list_usage_ids() == ["agent"]
    [record] = [r for r in caplog.records if r.name == "openhands.sdk.llm.llm_registry"]
    assert record.getMessage().startswith("Failed to emit event:")
    assert "RuntimeError('no')" in record.getMessage()


def test_a_copy_sharing_metrics_gets_its_own_when_added() -> None:
    registry = LLMRegistry()
    agent = _llm("agent")
    registry.add(agent)
    sharer = _llm("streaming")
    sharer.restore_metrics(agent.metrics)

    registry.add(sharer)

    assert sharer.metrics is not agent.metrics


def test_remove_forgets_an_llm_and_ignores_unknown_ids() -> None:
    registry = LLMRegistry()
    registry.add(_llm("agent"))

    registry.remove("agent")
    registry.remove("never-added")

    assert registry.list_usage_ids() == []
