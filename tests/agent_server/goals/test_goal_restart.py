"""Server death mid-goal: kill -9, restart on the same folder, resume, nothing lost."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import (
    ServerProcess,
    goal_values,
    llm_spec,
    verdict,
    wait_goal_end,
    wait_until,
)

# A reloaded agent has no key (keys never reach disk): the server falls back to LLM_API_KEY.
ENV = {"LLM_API_KEY": "test-key"}


@pytest.fixture
def servers(server_root: Path) -> Iterator[list[ServerProcess]]:
    """Servers this test starts (all on one conversations folder); stopped at the end."""
    started: list[ServerProcess] = []
    yield started
    for process in started:
        process.stop()


def _start_server(servers: list[ServerProcess], root: Path) -> ServerProcess:
    process = ServerProcess(root / "conversations", env=ENV).start()
    servers.append(process)
    return process


def _create(process: ServerProcess, fake: FakeOpenAIServer, model: str) -> str:
    with process.client() as http:
        body = {"agent": {"kind": "Agent", "llm": llm_spec(fake, model)}}
        return http.post("/api/conversations", json=body).json()["id"]


def _goal(process: ServerProcess, cid: str) -> Any:
    with process.client() as http:
        return http.get(f"/api/conversations/{cid}/goal").json()


def _log(process: ServerProcess, cid: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    page_id = None
    with process.client() as http:
        while True:
            params = {"limit": 100, **({"page_id": page_id} if page_id else {})}
            page = http.get(f"/api/conversations/{cid}/events/search", params=params).json()
            events += page["items"]
            page_id = page["next_page_id"]
            if not page_id:
                return events


@pytest.mark.slow
def test_kill_mid_goal_then_restart_resume_and_complete_without_losing_events(
    servers: list[ServerProcess],
    server_root: Path,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
) -> None:
    slow = FakeReply.tool_call("think", {"thought": "long step"}).delayed(3.0)
    fake_llm.script(agent_model, [FakeReply.text("first try"), slow, FakeReply.text("done")])
    fake_llm.script(judge_model, [verdict(False, "proof"), verdict(True)])
    first = _start_server(servers, server_root)
    cid = _create(first, fake_llm, agent_model)

    acknowledged: list[dict[str, Any]] = []
    with first.socket(cid, resend_all="true") as socket:
        with first.client() as http:
            body = {"objective": "prove it", "judge_llm": judge, "max_iterations": 5}
            assert http.post(f"/api/conversations/{cid}/goal", json=body).status_code == 200
        # Read until round 1 is judged and the agent is inside its slow second step.
        acknowledged += socket.until(
            lambda e: e.get("key") == "goal" and e["value"]["iteration"] == 1
        )
        wait_until(lambda: len(fake_llm.requests_for(agent_model)) == 2, what="the slow step")
    acknowledged += _log(first, cid)
    first.kill()

    second = _start_server(servers, server_root)
    status = _goal(second, cid)
    assert (status["status"], status["active"], status["reason"]) == (
        "interrupted",
        False,
        "server restart",
    )
    assert status["iteration"] == 1
    kept = {e["id"] for e in _log(second, cid)}
    assert {e["id"] for e in acknowledged} <= kept

    with second.client() as http:
        resumed = http.post(f"/api/conversations/{cid}/goal/resume", json={"judge_llm": judge})
        assert resumed.status_code == 200, resumed.text
    final = wait_goal_end(lambda: _goal(second, cid))
    assert (final["status"], final["iteration"]) == ("complete", 2)
    statuses = [v["status"] for v in goal_values(_log(second, cid))]
    assert statuses == [
        "running",  # start: the agent works on round 1
        "running",  # judging round 1
        "running",  # round 2: the agent's slow step, when the server is killed
        "interrupted",
        "running",  # resumed
        "running",  # judging round 2
        "complete",
    ]


@pytest.mark.slow
def test_graceful_shutdown_mid_goal_records_interrupted(
    servers: list[ServerProcess],
    server_root: Path,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge: dict[str, Any],
) -> None:
    fake_llm.script(agent_model, [FakeReply.tool_call("think", {"thought": "t"}).delayed(1.0)])
    process = _start_server(servers, server_root)
    cid = _create(process, fake_llm, agent_model)
    with process.client() as http:
        http.post(f"/api/conversations/{cid}/goal", json={"objective": "x", "judge_llm": judge})
    wait_until(lambda: fake_llm.requests_for(agent_model), what="the agent's call")
    process.stop()
    again = _start_server(servers, server_root)
    status = _goal(again, cid)
    assert (status["status"], status["reason"]) == ("interrupted", "server shutdown")


@pytest.mark.slow
def test_a_broken_conversation_is_skipped_and_reported(
    servers: list[ServerProcess],
    server_root: Path,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
) -> None:
    process = _start_server(servers, server_root)
    good = _create(process, fake_llm, agent_model)
    process.stop()
    broken = server_root / "conversations" / uuid.uuid4().hex
    broken.mkdir()
    (broken / "base_state.json").write_text("{not json")

    again = _start_server(servers, server_root)
    with again.client() as http:
        assert http.get(f"/api/conversations/{good}").status_code == 200
        info = http.get("/server_info").json()
    assert [b["id"] for b in info["broken_conversations"]] == [broken.name]
    assert info["broken_conversations"][0]["error"]


@pytest.mark.slow
def test_the_judges_usage_is_kept_with_the_conversation_across_a_restart(
    servers: list[ServerProcess],
    server_root: Path,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
) -> None:
    # The default judge is a copy of the agent's LLM: the same model answers both.
    fake_llm.script(agent_model, [FakeReply.text("done"), verdict(True)])
    process = _start_server(servers, server_root)
    cid = _create(process, fake_llm, agent_model)
    with process.client() as http:
        assert http.post(f"/api/conversations/{cid}/goal", json={"objective": "x"}).is_success
    assert wait_goal_end(lambda: _goal(process, cid))["status"] == "complete"
    process.stop()

    again = _start_server(servers, server_root)
    with again.client() as http:
        metrics = http.get(f"/api/conversations/{cid}").json()["metrics"]
    assert metrics["goal-judge"]["completions"] == 1
    assert metrics["default"]["completions"] == 1
