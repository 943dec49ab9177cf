"""Goal-test fixtures: the judge's LLM spec and verdict replies."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import llm_spec


@pytest.fixture
def judge(fake_llm: FakeOpenAIServer, judge_model: str) -> dict[str, Any]:
    """The judge LLM spec for a StartGoalRequest (its replies are scripted per test)."""
    return llm_spec(fake_llm, judge_model)


def verdict(complete: bool, *missing: str) -> FakeReply:
    """A judge answer."""
    score = 1.0 if complete else 0.4
    return FakeReply.text(
        json.dumps({"score": score, "complete": complete, "missing": list(missing)})
    )
