"""Fixtures for the SDK's test doubles."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    """A running fake OpenAI server, stopped after the test."""
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def client(server: FakeOpenAIServer) -> Iterator[httpx.Client]:
    """A plain HTTP client for the fake server's base URL."""
    with httpx.Client(base_url=server.base_url, timeout=10.0) as http:
        yield http
