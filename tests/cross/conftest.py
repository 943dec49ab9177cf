"""Fixtures for client-against-server tests: a real agent server subprocess and the fake LLM.

One server and one fake OpenAI server are shared by the module; each test gets its own
model name (so scripted replies never leak between tests) and its own conversation.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_server import LiveServer, Models, make_llm
from openhands.sdk import Agent, Tool
from openhands.sdk.remote import RemoteConversation, RemoteWorkspace
from openhands.sdk.testing import FakeOpenAIServer


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake OpenAI-compatible server, shared by the module."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """An agent server without session keys, shared by the module."""
    live = LiveServer(tmp_path_factory.mktemp("server")).start()
    yield live
    live.stop()


@pytest.fixture
def models() -> Models:
    """Fresh model names, so each test's scripted replies are its own."""
    tag = uuid.uuid4().hex[:8]
    return Models(agent=f"agent-{tag}", judge=f"judge-{tag}")


@pytest.fixture
def agent(fake_llm: FakeOpenAIServer, models: Models) -> Agent:
    """An agent with the terminal tool whose LLM is this test's model on the fake server."""
    return Agent(llm=make_llm(fake_llm, models.agent), tools=[Tool(name="terminal")])


@pytest.fixture
def remote_workspace(server: LiveServer, tmp_path: Path) -> RemoteWorkspace:
    """A workspace on the shared server, working in this test's tmp folder."""
    return RemoteWorkspace(host=server.url, working_dir=str(tmp_path / "project"))


@pytest.fixture
def conversation(agent: Agent, remote_workspace: RemoteWorkspace) -> Iterator[RemoteConversation]:
    """A new conversation on the shared server, closed after the test."""
    conv = RemoteConversation(agent, remote_workspace)
    yield conv
    conv.close()
