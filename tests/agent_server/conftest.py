"""Fixtures for agent-server tests: the fake LLM server, a live server, a conversation."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer

from .harness import ServerProcess, llm_spec, unique


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The scriptable OpenAI-compatible server, shared by a module (models keep queues apart)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A live agent server subprocess, shared by a module."""
    root = tmp_path_factory.mktemp("server")
    process = ServerProcess(root / "conversations").start()
    yield process
    process.stop()


@pytest.fixture
def client(server: ServerProcess) -> Iterator[httpx.Client]:
    """An HTTP client for the module's server."""
    with server.client() as http:
        yield http


@pytest.fixture
def agent_model() -> str:
    """A model name only this test scripts replies for."""
    return unique("agent")


@pytest.fixture
def judge_model() -> str:
    """A judge model name only this test scripts replies for."""
    return unique("judge")


@pytest.fixture
def make_conversation(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str
) -> Callable[..., str]:
    """A function creating a conversation for `agent_model`; returns its id."""

    def create(**extra: Any) -> str:
        body = {"agent": {"kind": "Agent", "llm": llm_spec(fake_llm, agent_model)}, **extra}
        response = client.post("/api/conversations", json=body)
        assert response.status_code == 201, response.text
        return response.json()["id"]

    return create


@pytest.fixture
def judge(fake_llm: FakeOpenAIServer, judge_model: str) -> dict[str, Any]:
    """The judge LLM spec for a StartGoalRequest (its replies are scripted per test)."""
    return llm_spec(fake_llm, judge_model)


@pytest.fixture
def conversation_id(make_conversation: Callable[..., str]) -> str:
    """A fresh conversation on the module's server."""
    return make_conversation()


@pytest.fixture
def server_root(tmp_path: Path) -> Path:
    """A fresh folder for a server of this test alone."""
    return tmp_path
