"""With every run thread busy, controls still answer: pause, stop, messages, create, delete.

The server gets OH_MAX_RUN_THREADS=4; four agents sit in a slow LLM call (the fake server
answers after a long delay) and a fifth run waits in the queue. Each control must answer
within a few seconds (a liveness bound, not a timing measurement: `bench/server_controls.py`
measures the latency).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from agent_server.harness import ServerProcess, llm_spec, unique, wait_until
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from waits import EVENT_WAIT

SLOW_CALL_SECONDS = 60.0
"""How long each agent's LLM call takes: longer than all the tests of this module."""
CONTROL_BOUND_SECONDS = 5.0
"""A control that takes longer than this is hung behind the runs."""


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake LLM server; replies to the slow model come after SLOW_CALL_SECONDS."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture(scope="module")
def busy(
    tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeOpenAIServer
) -> Iterator[tuple[ServerProcess, dict[str, str]]]:
    """A server whose four run threads are all in a slow LLM call, and a fifth run queued.

    Shared by the module: each test uses its own conversations of it.
    """
    tmp_path = tmp_path_factory.mktemp("busy")
    slow = unique("slow")
    fake_llm.set_responder(slow, lambda _body: FakeReply.text("late").delayed(SLOW_CALL_SECONDS))
    server = ServerProcess(tmp_path / "conversations", env={"OH_MAX_RUN_THREADS": "4"}).start()
    agent = {"kind": "Agent", "llm": llm_spec(fake_llm, slow)}
    ids: dict[str, str] = {}
    with server.client() as http:
        for name in ("run-a", "run-b", "goal-c", "goal-d", "queued-e", "idle-f"):
            ids[name] = http.post("/api/conversations", json={"agent": agent}).json()["id"]
        go = {"content": [{"type": "text", "text": "go"}], "run": True}
        for name in ("run-a", "run-b"):
            assert http.post(f"/api/conversations/{ids[name]}/events", json=go).is_success
        for name in ("goal-c", "goal-d"):
            goal = {"objective": "be slow", "judge_llm": llm_spec(fake_llm, slow)}
            assert http.post(f"/api/conversations/{ids[name]}/goal", json=goal).is_success
        # The first LLM call may wait for litellm's import (seconds): then all four are in.
        wait_until(lambda: len(fake_llm.requests_for(slow)) == 4, timeout=EVENT_WAIT, what="4 runs")
        assert http.post(f"/api/conversations/{ids['queued-e']}/events", json=go).is_success
    yield server, ids
    server.stop()


def _client(server: ServerProcess) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=CONTROL_BOUND_SECONDS)


def _status(http: httpx.Client, cid: str) -> Any:
    return http.get(f"/api/conversations/{cid}").json()["execution_status"]


def test_pause_answers_while_every_run_thread_is_busy(busy: Any) -> None:
    server, ids = busy
    with _client(server) as http:
        assert http.post(f"/api/conversations/{ids['run-a']}/pause").status_code == 200
        assert _status(http, ids["run-a"]) == "running"  # it stops after its LLM call


def test_a_message_answers_while_every_run_thread_is_busy(busy: Any) -> None:
    server, ids = busy
    body = {"content": [{"type": "text", "text": "also this"}]}
    with _client(server) as http:
        response = http.post(f"/api/conversations/{ids['run-b']}/events", json=body)
        assert response.status_code == 200


def test_goal_stop_answers_and_records_the_goal_interrupted(busy: Any) -> None:
    server, ids = busy
    with _client(server) as http:
        assert http.post(f"/api/conversations/{ids['goal-c']}/goal/stop").status_code == 200
        goal = http.get(f"/api/conversations/{ids['goal-c']}/goal").json()
    assert (goal["status"], goal["reason"]) == ("interrupted", "stopped by user")


def test_create_answers_while_every_run_thread_is_busy(
    busy: Any, fake_llm: FakeOpenAIServer
) -> None:
    server, _ = busy
    body = {"agent": {"kind": "Agent", "llm": llm_spec(fake_llm, unique("other"))}}
    with _client(server) as http:
        assert http.post("/api/conversations", json=body).status_code == 201


def test_delete_answers_for_idle_running_and_queued_conversations(busy: Any) -> None:
    server, ids = busy
    with _client(server) as http:
        for name in ("idle-f", "queued-e", "goal-d"):
            response = http.delete(f"/api/conversations/{ids[name]}")
            assert response.status_code == 200, name
            assert http.get(f"/api/conversations/{ids[name]}").status_code == 404
