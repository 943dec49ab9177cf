"""Fixtures for interop tests: the reference SDK's venv, both agent servers, the fake LLM.

Both servers require a session key, so the reference's clients authenticate as they do in
production (the key as the socket's first frame) and ours as it does (a header).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from interop_env import (
    REFERENCE_VERSIONS,
    ReferenceRunner,
    ServerProcess,
    quiet_env,
    reference_python_at,
)
from interop_script import respond
from openhands.sdk.io import write_atomic
from openhands.sdk.testing import FakeOpenAIServer
from waits import EVENT_WAIT

KEY = "interop-session-key"
MODEL = "openai/interop"


@pytest.fixture(scope="session")
def reference_python() -> Path:
    """The Python of the venv holding the reference's packages from PyPI."""
    return reference_python_at()


@pytest.fixture(scope="session")
def reference_runner(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[[Path], ReferenceRunner]]:
    """The ReferenceRunner of a reference Python (made on first use), shared by this test
    process's interop tests so the reference SDK is imported once per version."""
    runners: dict[Path, ReferenceRunner] = {}
    log_dir = tmp_path_factory.mktemp("reference-runners")

    def runner_for(python: Path) -> ReferenceRunner:
        if python not in runners:
            runners[python] = ReferenceRunner(python, log_dir)
        return runners[python]

    yield runner_for
    for runner in runners.values():
        runner.close()


@pytest.fixture(scope="session")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The scripted OpenAI-compatible LLM both servers' agents and judges call."""
    with FakeOpenAIServer() as server:
        server.set_responder("*", respond)
        yield server


@pytest.fixture(scope="session")
def our_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """This project's agent server, with a session key."""
    root = tmp_path_factory.mktemp("our-server")
    env = quiet_env(root) | {
        "OH_SESSION_API_KEYS": KEY,
        "OH_CONVERSATIONS_PATH": str(root / "conversations"),
        "OH_WORKSPACE_PATH": str(root / "workspaces"),
    }
    server = ServerProcess([sys.executable, "-m", "openhands.agent_server"], env, root, KEY)
    yield server.start()
    server.stop()


@pytest.fixture(scope="session")
def reference_server(
    reference_python: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """The reference's agent server (from its venv), with a session key."""
    root = tmp_path_factory.mktemp("reference-server")
    env = quiet_env(root) | {
        "OH_SESSION_API_KEYS_0": KEY,
        "OH_CONVERSATIONS_PATH": str(root / "conversations"),
        # The reference server's fork drops the agent's LLM key; litellm then falls back to
        # this variable (ours seals the key for the fork).
        "OPENAI_API_KEY": "fake-key",
    }
    command = [str(reference_python), "-m", "openhands.agent_server"]
    server = ServerProcess(command, env, root, KEY)
    yield server.start()
    server.stop()


@pytest.fixture
def client_config(fake_llm: FakeOpenAIServer, tmp_path: Path) -> dict[str, str]:
    """What a client flow needs besides the server: the LLM and a working directory."""
    working_dir = tmp_path / "project"
    working_dir.mkdir()
    return {
        "key": KEY,
        "model": MODEL,
        "base_url": fake_llm.base_url,
        "working_dir": str(working_dir),
    }


@pytest.fixture(scope="session", params=REFERENCE_VERSIONS)
def any_reference_python(request: pytest.FixtureRequest) -> Path:
    """The Python of the reference's venv at each of REFERENCE_VERSIONS in turn."""
    return reference_python_at(request.param)


@pytest.fixture(scope="session")
def latest_reference_python() -> Path:
    """The Python of the venv holding the latest reference release."""
    return reference_python_at(REFERENCE_VERSIONS[-1])


@pytest.fixture(scope="session")
def latest_reference_openapi(
    latest_reference_python: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """The OpenAPI description the latest reference's agent server serves. A pinned release
    always serves the same one, so it is kept in that release's venv folder after its first
    read: later runs do not start the reference's server (~6 s of CPU) for it."""
    kept = latest_reference_python.parent.parent / "openapi.json"
    if kept.is_file():
        return json.loads(kept.read_text())
    root = tmp_path_factory.mktemp("latest-reference-server")
    env = quiet_env(root) | {
        "OH_SESSION_API_KEYS_0": KEY,
        "OH_CONVERSATIONS_PATH": str(root / "conversations"),
    }
    command = [str(latest_reference_python), "-m", "openhands.agent_server"]
    server = ServerProcess(command, env, root, KEY).start()
    try:
        answer = httpx.get(f"{server.url}/openapi.json", timeout=EVENT_WAIT)
        answer.raise_for_status()
        spec: dict[str, Any] = answer.json()
    finally:
        server.stop()
    write_atomic(kept, json.dumps(spec))  # whole or absent: another run may read it any time
    return spec
