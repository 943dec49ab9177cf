"""An agent created over REST with a condenser: its JSON round-trips, and the summarizer's key
is never shown."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer

from ..harness import llm_spec, unique

pytestmark = pytest.mark.slow


def test_a_condenser_round_trips_and_its_key_stays_hidden(
    client: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    summarizer: dict[str, Any] = {
        **llm_spec(fake_llm, unique("summary")),
        "usage_id": "condenser",
        "api_key": "sk-condenser-secret",
    }
    condenser = {"kind": "LLMSummarizingCondenser", "llm": summarizer, "max_size": 40}
    agent = {"kind": "Agent", "llm": llm_spec(fake_llm, unique("agent")), "condenser": condenser}

    created = client.post("/api/conversations", json={"agent": agent})

    assert created.status_code == 201, created.text
    info = client.get(f"/api/conversations/{created.json()['id']}")
    shown = info.json()["agent"]["condenser"]
    assert shown["kind"] == "LLMSummarizingCondenser" and shown["max_size"] == 40
    assert shown["llm"]["usage_id"] == "condenser"
    assert "sk-condenser-secret" not in info.text and "sk-condenser-secret" not in created.text


def test_a_bad_condenser_is_a_422_naming_it(
    client: httpx.Client, fake_llm: FakeOpenAIServer
) -> None:
    agent = {
        "kind": "Agent",
        "llm": llm_spec(fake_llm, unique("agent")),
        "condenser": {
            "kind": "LLMSummarizingCondenser",
            "llm": {"model": "x"},
            "max_size": 4,
            "keep_first": 3,
        },
    }
    response = client.post("/api/conversations", json={"agent": agent})
    assert response.status_code == 422
    assert "condenser" in response.text and "keep_first" in response.text
