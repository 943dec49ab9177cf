"""Fixtures for LLM tests: a fake OpenAI-compatible server and LLMs pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from openhands.sdk.llm import LLM
from openhands.sdk.testing import FakeOpenAIServer
from pydantic import SecretStr

API_KEY = "sk-test-very-secret-0123456789"


@pytest.fixture
def api_key() -> str:
    """The secret key the test LLMs send."""
    return API_KEY


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    """A running fake server, stopped after the test."""
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def make_llm(server: FakeOpenAIServer) -> Callable[..., LLM]:
    """Build an `LLM` for `openai/<name>` on the fake server with fast retries."""

    def build(name: str = "agent", **fields: Any) -> LLM:
        settings: dict[str, Any] = {
            "model": f"openai/{name}",
            "base_url": server.base_url,
            "api_key": SecretStr(API_KEY),
            "num_retries": 2,
            "retry_min_wait": 0.01,
            "retry_max_wait": 0.05,
            "timeout": 30.0,
        }
        settings.update(fields)
        return LLM(**settings)

    return build
