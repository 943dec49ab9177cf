"""A goal started (or resumed) on a conversation whose tool call waits for approval waits too.

The conversation has `confirmation_policy: AlwaysConfirm`; a message with `run` leaves one
terminal call pending (it would create the file `ran`). `POST /goal` must not approve that
call by running the agent: the goal's first step is the same approval wait (phase
`waiting_for_approval`), the command runs only after `respond_to_confirmation` accepts it, and
then the goal goes on and completes. The same holds after kill -9 and a restart (the wait is
in the log), and for a goal resumed after a kill -9 that came during that wait.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_server.harness import ServerProcess, unique, verdict, wait_goal_end, wait_until
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from waits import EVENT_WAIT

from .goal_restarts import create_conversation, goal, judge_spec, keyed_models, read_log

MARKER = "ran"
"""The file the pending terminal call creates: it exists only if the call ran."""


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake LLM server of this module."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    """Servers a test starts; killed at the end whatever happened."""
    started: list[ServerProcess] = []
    yield started
    for process in started:
        process.kill()


def _start(servers: list[ServerProcess], conversations: Path) -> ServerProcess:
    server = ServerProcess(conversations)
    servers.append(server.start())
    return server


def _status(server: ServerProcess, cid: str) -> str:
    with server.client() as http:
        return http.get(f"/api/conversations/{cid}").json()["execution_status"]


def _pending_call(server: ServerProcess, cid: str) -> None:
    """Message + run: the agent's terminal call waits for approval."""
    message = {"role": "user", "content": [{"type": "text", "text": "make it"}], "run": True}
    with server.client() as http:
        assert http.post(f"/api/conversations/{cid}/events", json=message).status_code == 200
    wait_until(
        lambda: _status(server, cid) == "waiting_for_confirmation",
        what="the terminal call to wait for approval",
    )


def _waiting_or_ran(server: ServerProcess, cid: str, work: Path) -> dict[str, Any]:
    """The goal status once it waits for the approval, or once the call ran without one."""

    def settled() -> dict[str, Any] | None:
        status = goal(server, cid)
        if (work / MARKER).exists() or (status and status["phase"] == "waiting_for_approval"):
            return status or {}
        if status and not status["active"]:
            return status
        return None

    return wait_until(settled, timeout=EVENT_WAIT, what="the goal to wait (or the call to run)")


def _assert_goal_waits(server: ServerProcess, cid: str, work: Path) -> None:
    status = _waiting_or_ran(server, cid, work)
    assert not (work / MARKER).exists(), "the pending command ran without an approval"
    assert (status["status"], status["active"], status["phase"]) == (
        "running",
        True,
        "waiting_for_approval",
    )
    assert _status(server, cid) == "waiting_for_confirmation"


def _approve_and_finish(server: ServerProcess, cid: str, work: Path) -> None:
    with server.client() as http:
        answer = http.post(
            f"/api/conversations/{cid}/events/respond_to_confirmation", json={"accept": True}
        )
    assert answer.status_code == 200, answer.text
    final = wait_goal_end(lambda: goal(server, cid), timeout=EVENT_WAIT)
    assert final["status"] == "complete", final
    assert (work / MARKER).exists()
    kinds = [e["kind"] for e in read_log(server, cid)]
    observations = [k for k in kinds if k == "ObservationEvent"]
    assert len(observations) == 1  # the approved call ran exactly once


def _setup(
    servers: list[ServerProcess], fake: FakeOpenAIServer, tmp_path: Path
) -> tuple[ServerProcess, str, Path, dict[str, Any]]:
    conversations, work = tmp_path / "conversations", tmp_path / "work"
    agent_model, judge_model = unique("agent"), unique("judge")
    keyed_models(fake, agent_model, judge_model)
    call = FakeReply.tool_call("terminal", {"command": f"touch {MARKER}"})
    fake.script(agent_model, [call, FakeReply.text("done")])
    fake.script(judge_model, [verdict(True)])
    server = _start(servers, conversations)
    cid = create_conversation(
        server,
        fake,
        agent_model,
        tools=("terminal",),
        workspace={"working_dir": str(work)},
        confirmation_policy={"kind": "AlwaysConfirm"},
    )
    body = {"objective": "make it", "judge_llm": judge_spec(fake, judge_model)}
    return server, cid, work, body


def test_a_goal_started_on_a_waiting_conversation_waits_for_the_approval(
    tmp_path: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    server, cid, work, body = _setup(servers, fake_llm, tmp_path)
    _pending_call(server, cid)

    with server.client() as http:
        started = http.post(f"/api/conversations/{cid}/goal", json=body)
    assert started.status_code == 200, started.text

    _assert_goal_waits(server, cid, work)
    _approve_and_finish(server, cid, work)


def test_after_kill_9_and_a_restart_a_goal_still_waits_for_the_approval(
    tmp_path: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    first, cid, work, body = _setup(servers, fake_llm, tmp_path)
    _pending_call(first, cid)
    first.kill()
    second = _start(servers, first.conversations)
    assert _status(second, cid) == "waiting_for_confirmation"

    with second.client() as http:
        started = http.post(f"/api/conversations/{cid}/goal", json=body)
    assert started.status_code == 200, started.text

    _assert_goal_waits(second, cid, work)
    _approve_and_finish(second, cid, work)


def test_a_goal_resumed_after_kill_9_during_the_wait_waits_again(
    tmp_path: Path, fake_llm: FakeOpenAIServer, servers: list[ServerProcess]
) -> None:
    first, cid, work, body = _setup(servers, fake_llm, tmp_path)
    _pending_call(first, cid)
    with first.client() as http:
        assert http.post(f"/api/conversations/{cid}/goal", json=body).status_code == 200
    _assert_goal_waits(first, cid, work)
    first.kill()
    second = _start(servers, first.conversations)
    status = goal(second, cid)
    assert status is not None
    assert (status["status"], status["reason"]) == ("interrupted", "server restart")

    with second.client() as http:
        resumed = http.post(f"/api/conversations/{cid}/goal/resume")
    assert resumed.status_code == 200, resumed.text

    _assert_goal_waits(second, cid, work)
    _approve_and_finish(second, cid, work)
