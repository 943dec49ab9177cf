"""Stopping the server while an agent waits on a slow LLM call: it exits promptly, the goal
is recorded `interrupted`, and a restart shows a new boot id and the interrupted goal."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_server.harness import ServerProcess, llm_spec, unique, wait_until
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

LLM_DELAY = 60.0
"""How long the agent's LLM call takes: far longer than any shutdown may."""
EXIT_BOUND = 10.0
"""How long the stopped server may take to exit: the bound issue 8 sets (the fix: ~3.3 s,
mostly OH_SHUTDOWN_RUN_WAIT_SECONDS; before it: ~43 s)."""


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake LLM server (its slow replies sleep in daemon threads)."""
    with FakeOpenAIServer() as server:
        yield server


def start_slow_goal(server: ServerProcess, fake: FakeOpenAIServer) -> str:
    """A conversation whose goal's first agent LLM call is under way (and takes a minute)."""
    model = unique("slow")
    fake.script(model, [FakeReply.text("done").delayed(LLM_DELAY)])
    with server.client() as client:
        body = {"agent": {"kind": "Agent", "llm": llm_spec(fake, model)}}
        conversation = client.post("/api/conversations", json=body).json()["id"]
        goal = {"objective": "answer slowly", "judge_llm": llm_spec(fake, unique("judge"))}
        assert client.post(f"/api/conversations/{conversation}/goal", json=goal).status_code == 200
    wait_until(lambda: fake.requests_for(model), what="the agent's LLM call")
    return conversation


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
def test_stop_during_a_long_llm_call_exits_and_records_the_goal_interrupted(
    tmp_path: Path, fake_llm: FakeOpenAIServer, stop_signal: signal.Signals
) -> None:
    server = ServerProcess(tmp_path / "conversations").start()
    try:
        with server.client() as client:
            first_boot = client.get("/server_info").json()["boot_id"]
        conversation = start_slow_goal(server, fake_llm)
        assert server.process is not None
        server.process.send_signal(stop_signal)
        try:
            server.process.wait(timeout=EXIT_BOUND)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the server was still running {EXIT_BOUND}s after {stop_signal.name}")
    finally:
        server.kill()

    restarted = ServerProcess(tmp_path / "conversations").start()
    try:
        with restarted.client() as client:
            assert client.get("/server_info").json()["boot_id"] != first_boot
            goal = client.get(f"/api/conversations/{conversation}/goal").json()
        assert goal["status"] == "interrupted"
        assert goal["reason"] == "server shutdown"
        assert not goal["active"]
    finally:
        restarted.stop()
