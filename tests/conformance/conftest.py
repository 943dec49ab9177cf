"""The drivers under test (one per module run, parametrized) and the fake LLM they share.

The Temporal driver needs the session's Temporal dev server and one worker on a task queue of
its own; every process is on loopback and stopped at the end.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.testing import FakeOpenAIServer
from temporal.harness import TemporalDevServer, Worker

from .drivers import GoalDriverHarness, LocalDriver, ServerDriver

DRIVERS = ("run_goal", "server", "temporal")


@pytest.fixture(scope="session")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The scripted OpenAI-compatible server (each test scripts its own model names)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture(scope="session")
def temporal_dev(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TemporalDevServer]:
    """The session's Temporal dev server (started only if a Temporal case runs)."""
    server = TemporalDevServer(tmp_path_factory.mktemp("temporal")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module", params=DRIVERS)
def driver(
    request: pytest.FixtureRequest,
    fake_llm: FakeOpenAIServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[GoalDriverHarness]:
    """One goal driver, shared by the module's tests that run on it."""
    root: Path = tmp_path_factory.mktemp(request.param)
    harness: GoalDriverHarness
    worker: Worker | None = None
    if request.param == "run_goal":
        harness = LocalDriver(root, fake_llm)
    elif request.param == "server":
        harness = ServerDriver("server", root, fake_llm)
    else:
        temporal: TemporalDevServer = request.getfixturevalue("temporal_dev")
        queue = f"conformance-{os.urandom(4).hex()}"
        env = {
            "OH_GOAL_BACKEND": "temporal",
            "OH_TEMPORAL_ADDRESS": temporal.address,
            "OH_TEMPORAL_TASK_QUEUE": queue,
        }
        server_driver = ServerDriver("temporal", root, fake_llm, env)
        worker = Worker(temporal.address, queue, root / "worker.log", [server_driver.server.url])
        harness = server_driver
    yield harness
    harness.close()
    if worker is not None:
        worker.kill()
