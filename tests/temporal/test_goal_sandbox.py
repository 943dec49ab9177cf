"""A goal's `verify` on Temporal runs where the built-in driver's does: on the agent server,
in its sandbox (the worker only sends the step), so it reads no key and writes the workspace."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agent_server.harness import ServerProcess, llm_spec, unique, verdict, wait_goal_end
from openhands.agent_server.services.sealing import KEY_FILE_NAME
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from .harness import Worker


def test_a_workflow_s_verify_runs_in_the_server_s_sandbox(
    agent_server: ServerProcess,
    workers: Callable[..., Worker],
    fake_llm: FakeOpenAIServer,
    tmp_path: Path,
) -> None:
    workers()
    key = (tmp_path / KEY_FILE_NAME).read_text().strip()
    work = tmp_path / "work"
    work.mkdir()
    agent_model, judge_model = unique("agent"), unique("judge")
    fake_llm.script(agent_model, [FakeReply.text("done")])
    fake_llm.script(judge_model, [verdict(True)])
    verify = f"echo to-stdout; echo to-stderr >&2; cat {tmp_path / KEY_FILE_NAME}; touch made-here"
    with agent_server.client() as client:
        sandboxed = client.get("/server_info").json()["sandbox"]["active"]
        agent = {"kind": "Agent", "llm": llm_spec(fake_llm, agent_model)}
        body = {"agent": agent, "workspace": {"kind": "LocalWorkspace", "working_dir": str(work)}}
        created = client.post("/api/conversations", json=body)
        assert created.status_code == 201, created.text
        cid = created.json()["id"]
        goal = {
            "objective": "do it",
            "verify": verify,
            "judge_llm": llm_spec(fake_llm, judge_model),
        }
        started = client.post(f"/api/conversations/{cid}/goal", json=goal)
        assert started.status_code == 200, started.text

        ended = wait_goal_end(
            lambda: client.get(f"/api/conversations/{cid}/goal").json(), timeout=90
        )

    tail = ended["verify"]["output_tail"]
    assert "to-stdout" in tail and "to-stderr" in tail, ended["verify"]
    assert (work / "made-here").exists()  # the workspace is writable in the sandbox
    if sandboxed:
        assert key not in tail, ended["verify"]
        assert ended["verify"]["exit_code"] == 0  # `cat` of a hidden file fails; touch is last
