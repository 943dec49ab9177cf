"""Goals on Temporal end to end: a real dev server, an agent server with OH_GOAL_BACKEND=temporal
and worker processes; the REST routes answer as with the built-in driver."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from agent_server.harness import (
    ServerProcess,
    llm_spec,
    unique,
    verdict,
    wait_goal_end,
    wait_until,
)
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from temporalio.client import Client

from .harness import TemporalDevServer, Worker


def _create(client: httpx.Client, fake_llm: FakeOpenAIServer, model: str) -> str:
    agent = {"kind": "Agent", "llm": llm_spec(fake_llm, model)}
    response = client.post("/api/conversations", json={"agent": agent})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _user_texts(client: httpx.Client, cid: str) -> list[str]:
    items = client.get(
        f"/api/conversations/{cid}/events/search",
        params={"kind": "MessageEvent", "source": "user", "limit": 100},
    ).json()["items"]
    return ["".join(p.get("text", "") for p in e["llm_message"]["content"]) for e in items]


def test_a_goal_runs_as_a_workflow_and_completes(
    agent_server: ServerProcess,
    workers: Callable[..., Worker],
    fake_llm: FakeOpenAIServer,
) -> None:
    workers()
    agent_model, judge_model = unique("agent"), unique("judge")
    fake_llm.script(agent_model, [FakeReply.text("first try"), FakeReply.text("fixed it")])
    fake_llm.script(judge_model, [verdict(False, "the fix"), verdict(True)])
    judge: dict[str, Any] = llm_spec(fake_llm, judge_model)
    with agent_server.client() as client:
        cid = _create(client, fake_llm, agent_model)
        started = client.post(
            f"/api/conversations/{cid}/goal", json={"objective": "fix it", "judge_llm": judge}
        )
        assert started.status_code == 200, started.text

        ended = wait_goal_end(
            lambda: client.get(f"/api/conversations/{cid}/goal").json(), timeout=90
        )

        assert ended["status"] == "complete" and ended["iteration"] == 2
        texts = _user_texts(client, cid)
        assert texts[0] == "fix it" and len(texts) == 2  # each round's message exactly once


def test_stop_interrupts_the_workflow_and_resume_completes_it(
    agent_server: ServerProcess,
    workers: Callable[..., Worker],
    fake_llm: FakeOpenAIServer,
) -> None:
    workers()
    agent_model, judge_model = unique("agent"), unique("judge")
    slow = FakeReply.tool_call("think", {"thought": "working"}).delayed(3.0)
    fake_llm.script(agent_model, [slow, FakeReply.text("done"), FakeReply.text("done again")])
    fake_llm.script(judge_model, [verdict(True)])
    judge = llm_spec(fake_llm, judge_model)
    with agent_server.client() as client:
        cid = _create(client, fake_llm, agent_model)
        assert (
            client.post(
                f"/api/conversations/{cid}/goal", json={"objective": "do it", "judge_llm": judge}
            ).status_code
            == 200
        )
        wait_until(
            lambda: client.get(f"/api/conversations/{cid}").json()["execution_status"] == "running",
            what="the agent running",
        )
        assert client.post(f"/api/conversations/{cid}/goal/stop").status_code == 200
        stopped = wait_goal_end(
            lambda: client.get(f"/api/conversations/{cid}/goal").json(), timeout=60
        )
        assert stopped["status"] == "interrupted"
        wait_until(
            lambda: client.get(f"/api/conversations/{cid}").json()["execution_status"] != "running",
            what="the agent paused",
        )

        assert client.post(f"/api/conversations/{cid}/goal/resume").status_code == 200
        resumed = wait_goal_end(
            lambda: client.get(f"/api/conversations/{cid}/goal").json(), timeout=90
        )
        assert resumed["status"] == "complete"


def test_twenty_goals_over_two_servers_complete_with_each_message_once(
    temporal_server: TemporalDevServer,
    queue: str,
    workers: Callable[..., Worker],
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
) -> None:
    env = {
        "OH_GOAL_BACKEND": "temporal",
        "OH_TEMPORAL_ADDRESS": temporal_server.address,
        "OH_TEMPORAL_TASK_QUEUE": queue,
    }
    for n in (0, 1):
        (tmp_path / f"s{n}").mkdir()
    servers = [ServerProcess(tmp_path / f"s{n}" / "conversations", env=env) for n in (0, 1)]
    workers(*(server.url for server in servers))
    workers(*(server.url for server in servers))
    for server in servers:
        server.start()
    try:
        goals: list[tuple[ServerProcess, str]] = []
        for n in range(20):
            server = servers[n % 2]
            agent_model, judge_model = unique("agent"), unique("judge")
            fake_llm.script(agent_model, [FakeReply.text("try"), FakeReply.text("done")])
            fake_llm.script(judge_model, [verdict(False, "more"), verdict(True)])
            with server.client() as client:
                cid = _create(client, fake_llm, agent_model)
                body = {"objective": f"goal {n}", "judge_llm": llm_spec(fake_llm, judge_model)}
                assert client.post(f"/api/conversations/{cid}/goal", json=body).status_code == 200
            goals.append((server, cid))
        for server, cid in goals:
            with server.client() as client:
                ended = wait_goal_end(
                    lambda c=client, i=cid: c.get(f"/api/conversations/{i}/goal").json(),
                    timeout=120,
                )
                assert ended["status"] == "complete" and ended["iteration"] == 2
                assert len(_user_texts(client, cid)) == 2
    finally:
        for server in servers:
            server.stop()


def test_a_worker_killed_mid_round_is_replaced_and_nothing_is_sent_twice(
    agent_server: ServerProcess,
    workers: Callable[..., Worker],
    fake_llm: FakeOpenAIServer,
    temporal_server: TemporalDevServer,
) -> None:
    doomed = workers()
    agent_model, judge_model = unique("agent"), unique("judge")
    slow = FakeReply.tool_call("think", {"thought": "working"}).delayed(4.0)
    fake_llm.script(agent_model, [slow, FakeReply.text("done")])
    fake_llm.script(judge_model, [verdict(True)])
    with agent_server.client() as client:
        cid = _create(client, fake_llm, agent_model)
        body = {"objective": "survive", "judge_llm": llm_spec(fake_llm, judge_model)}
        assert client.post(f"/api/conversations/{cid}/goal", json=body).status_code == 200
        wait_until(
            lambda: client.get(f"/api/conversations/{cid}").json()["execution_status"] == "running",
            what="the agent running",
        )
        doomed.kill()  # SIGKILL in the middle of the round's run
        workers()

        ended = wait_goal_end(
            lambda: client.get(f"/api/conversations/{cid}/goal").json(), timeout=120
        )

        assert ended["status"] == "complete"
        assert _user_texts(client, cid) == ["survive"]

    async def task_timeout() -> float:
        temporal = await Client.connect(temporal_server.address)
        described = await temporal.get_workflow_handle(f"goal-{cid}").describe()
        timeout = described.raw_description.execution_config.default_workflow_task_timeout
        return timeout.ToTimedelta().total_seconds()

    # The replacement took over after the server's OH_TEMPORAL_TASK_TIMEOUT_SECONDS (3 s here).
    assert asyncio.run(task_timeout()) == 3.0


def test_a_worker_killed_while_the_judge_decides_is_replaced_with_one_verdict(
    agent_server: ServerProcess, workers: Callable[..., Worker], fake_llm: FakeOpenAIServer
) -> None:
    doomed = workers()
    agent_model, judge_model = unique("agent"), unique("judge")
    fake_llm.script(agent_model, [FakeReply.text("done")])
    fake_llm.script(judge_model, [verdict(True).delayed(4.0), verdict(True)])
    with agent_server.client() as client:
        cid = _create(client, fake_llm, agent_model)
        body = {"objective": "judge me", "judge_llm": llm_spec(fake_llm, judge_model)}
        assert client.post(f"/api/conversations/{cid}/goal", json=body).status_code == 200
        wait_until(
            lambda: (
                (client.get(f"/api/conversations/{cid}/goal").json() or {}).get("phase")
                == "judging"
            ),
            what="the judge deciding",
        )
        doomed.kill()
        workers()

        ended = wait_goal_end(
            lambda: client.get(f"/api/conversations/{cid}/goal").json(), timeout=120
        )

        assert ended["status"] == "complete" and ended["iteration"] == 1
        assert _user_texts(client, cid) == ["judge me"]


def test_goals_continue_after_the_temporal_server_is_killed_and_restarted(
    fake_llm: FakeOpenAIServer, tmp_path: Path
) -> None:
    temporal = TemporalDevServer(tmp_path).start()
    queue = "restart"
    env = {
        "OH_GOAL_BACKEND": "temporal",
        "OH_TEMPORAL_ADDRESS": temporal.address,
        "OH_TEMPORAL_TASK_QUEUE": queue,
    }
    server = ServerProcess(tmp_path / "conversations", env=env).start()
    worker = Worker(temporal.address, queue, tmp_path / "worker.log", [server.url])
    try:
        agent_model, judge_model = unique("agent"), unique("judge")
        slow = FakeReply.tool_call("think", {"thought": "working"}).delayed(4.0)
        fake_llm.script(agent_model, [slow, FakeReply.text("done")])
        fake_llm.script(judge_model, [verdict(True)])
        with server.client() as client:
            cid = _create(client, fake_llm, agent_model)
            body = {"objective": "outlive it", "judge_llm": llm_spec(fake_llm, judge_model)}
            assert client.post(f"/api/conversations/{cid}/goal", json=body).status_code == 200
            wait_until(
                lambda: (
                    client.get(f"/api/conversations/{cid}").json()["execution_status"] == "running"
                ),
                what="the agent running",
            )
            temporal.kill()  # SIGKILL; the same database and port come back
            temporal.start()

            ended = wait_goal_end(
                lambda: client.get(f"/api/conversations/{cid}/goal").json(), timeout=150
            )

            assert ended["status"] == "complete"
            assert _user_texts(client, cid) == ["outlive it"]
    finally:
        worker.kill()
        server.stop()
        temporal.stop()


def test_steps_longer_than_a_call_are_signalled_and_each_runs_once(
    temporal_server: TemporalDevServer,
    queue: str,
    workers: Callable[..., Worker],
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
) -> None:
    """The agent's run and the judge outlast a step call's wait: the server signals their
    end, the workflow asks for the result and goes on (no waiting for the recheck)."""
    env = {
        "OH_GOAL_BACKEND": "temporal",
        "OH_TEMPORAL_ADDRESS": temporal_server.address,
        "OH_TEMPORAL_TASK_QUEUE": queue,
        "OH_TEMPORAL_STEP_WAIT_SECONDS": "0.2",
        "OH_TEMPORAL_RECHECK_SECONDS": "3600",  # a lost signal would hang the test
    }
    server = ServerProcess(tmp_path / "conversations", env=env).start()
    try:
        workers(server.url)
        agent_model, judge_model = unique("agent"), unique("judge")
        fake_llm.script(agent_model, [FakeReply.text("done").delayed(1.0)])
        fake_llm.script(judge_model, [FakeReply.text(json.dumps({"complete": True})).delayed(1.0)])
        with server.client() as client:
            cid = _create(client, fake_llm, agent_model)
            body = {"objective": "take your time", "judge_llm": llm_spec(fake_llm, judge_model)}
            assert client.post(f"/api/conversations/{cid}/goal", json=body).status_code == 200
            ended = wait_goal_end(
                lambda: client.get(f"/api/conversations/{cid}/goal").json(), timeout=120
            )
            assert ended["status"] == "complete" and _user_texts(client, cid) == ["take your time"]
    finally:
        server.stop()

    async def signals() -> list[str]:
        temporal = await Client.connect(temporal_server.address)
        history = await temporal.get_workflow_handle(f"goal-{cid}").fetch_history()
        return [
            e.workflow_execution_signaled_event_attributes.signal_name
            for e in history.events
            if e.HasField("workflow_execution_signaled_event_attributes")
        ]

    # The run and the judge outlast the wait, so at least they are signalled; on a busy
    # machine a short step may outlast 0.2 s too. Each step still ran once (checked above).
    sent = asyncio.run(signals())
    assert len(sent) >= 2 and set(sent) == {"step_ended"}, sent
