"""LLM profiles by name over REST: a conversation's agent (`llm_profile`) and a goal's judge
(`judge_llm_profile`), their keys staying on the server, also after a restart."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from waits import EVENT_WAIT

from ..harness import ServerProcess, unique, wait_goal_end, wait_until

pytestmark = pytest.mark.slow

SESSION = "profile-conversations-session"
ENV = {"OH_SESSION_API_KEYS": SESSION, "OH_SECRET_KEY": "profile-conv-sealing-" + "p" * 40}
AGENT_KEY = "sk-agent-profile-0a91"
JUDGE_KEY = "sk-judge-profile-77f3"
# Each fresh server imports litellm before its first LLM call: seconds alone, far longer when
# other work keeps the cores busy.
RUN_TIMEOUT = EVENT_WAIT


def _save(rest: httpx.Client, fake: FakeOpenAIServer, key: str) -> str:
    name = unique("prof")
    fake.require_api_key(key, name)
    llm = {"model": f"openai/{name}", "base_url": fake.base_url, "api_key": key, "num_retries": 0}
    assert rest.post(f"/api/profiles/{name}", json={"llm": llm}).status_code == 201
    return name


def _status(rest: httpx.Client, cid: str) -> str:
    return rest.get(f"/api/conversations/{cid}").json()["execution_status"]


def test_an_agent_and_a_judge_named_by_profile(tmp_path: Path, fake_llm: FakeOpenAIServer) -> None:
    server = ServerProcess(tmp_path / "conversations", env=ENV).start()
    try:
        with server.client() as rest:
            agent, judge = _save(rest, fake_llm, AGENT_KEY), _save(rest, fake_llm, JUDGE_KEY)
            fake_llm.script(agent, [FakeReply.text("first"), FakeReply.text("second")])
            verdict = {"score": 1.0, "complete": True, "missing": ""}
            fake_llm.script(judge, [FakeReply.text(json.dumps(verdict))])
            created = rest.post(
                "/api/conversations",
                json={
                    "llm_profile": agent,
                    "initial_message": {"content": [{"type": "text", "text": "go"}], "run": True},
                },
            )
            assert created.status_code == 201, created.text
            cid = created.json()["id"]
            wait_until(lambda: _status(rest, cid) == "finished", RUN_TIMEOUT, what="the first run")
            info = created.json()
        server.kill()  # the profile's key is sealed with the conversation: it survives

        server = ServerProcess(tmp_path / "conversations", env=ENV).start()
        with server.client() as rest:
            started = rest.post(
                f"/api/conversations/{cid}/goal",
                json={"objective": "say it twice", "judge_llm_profile": judge},
            )
            assert started.status_code == 200, started.text
            goal = wait_goal_end(
                lambda: rest.get(f"/api/conversations/{cid}/goal").json(), RUN_TIMEOUT
            )
    finally:
        server.stop()

    assert info["agent"]["llm"]["model"] == f"openai/{agent}"
    assert info["agent"]["llm"]["api_key"] is None
    assert goal["status"] == "complete"
    assert fake_llm.remaining(agent) == 0 and fake_llm.remaining(judge) == 0


def test_unknown_profiles_are_422_naming_the_field(
    server: ServerProcess, client: httpx.Client, conversation_id: str
) -> None:
    agent = client.post("/api/conversations", json={"llm_profile": "no-such-profile"})
    judge = client.post(
        f"/api/conversations/{conversation_id}/goal",
        json={"objective": "x", "judge_llm_profile": "no-such-profile"},
    )
    bad_name = client.post("/api/conversations", json={"llm_profile": "bad name!"})

    assert agent.status_code == 422 and agent.json()["detail"][0]["loc"] == ["body", "llm_profile"]
    assert judge.status_code == 422
    assert judge.json()["detail"][0]["loc"] == ["body", "judge_llm_profile"]
    assert bad_name.status_code == 422
    assert client.get(f"/api/conversations/{conversation_id}/goal").json() is None


def test_a_profile_conversation_waits_for_approval_and_its_fork_keeps_the_key(
    tmp_path: Path, fake_llm: FakeOpenAIServer
) -> None:
    server = ServerProcess(tmp_path / "conversations", env=ENV).start()
    try:
        with server.client() as rest:
            agent = _save(rest, fake_llm, AGENT_KEY)
            # A terminal call waits under AlwaysConfirm (think and finish never do).
            ask = FakeReply.tool_call("terminal", {"command": "echo plan"})
            fake_llm.script(agent, [ask, FakeReply.text("done"), FakeReply.text("forked")])
            with_terminal = {"kind": "Agent", "tools": [{"name": "terminal"}]}
            body = {"llm_profile": agent, "agent": with_terminal}
            cid = rest.post("/api/conversations", json=body).json()["id"]
            policy = {"policy": {"kind": "AlwaysConfirm"}}
            assert rest.post(f"/api/conversations/{cid}/confirmation_policy", json=policy)
            message = {"content": [{"type": "text", "text": "go"}], "run": True}
            assert rest.post(f"/api/conversations/{cid}/events", json=message).status_code == 200
            wait_until(
                lambda: _status(rest, cid) == "waiting_for_confirmation",
                RUN_TIMEOUT,
                what="the call to wait for approval",
            )
            # the conversation keeps the copy sealed with it: the profile may go
            assert rest.delete(f"/api/profiles/{agent}").status_code == 200
            approve = {"accept": True}
            answer = rest.post(
                f"/api/conversations/{cid}/events/respond_to_confirmation", json=approve
            )
            assert answer.status_code == 200, answer.text
            wait_until(lambda: _status(rest, cid) == "finished", RUN_TIMEOUT, what="the run")

            fork = rest.post(f"/api/conversations/{cid}/fork", json={})
            assert fork.status_code in (200, 201), fork.text
            fid = fork.json()["id"]
            assert rest.post(f"/api/conversations/{fid}/events", json=message).status_code == 200
            wait_until(lambda: _status(rest, fid) == "finished", RUN_TIMEOUT, what="the fork")
            observations = rest.get(
                f"/api/conversations/{cid}/events/search", params={"kind": "ObservationEvent"}
            ).json()["items"]
    finally:
        server.stop()

    assert [o["tool_name"] for o in observations] == ["terminal"]
    assert fake_llm.remaining(agent) == 0
    sent = [
        headers.get("authorization")
        for body, headers in zip(fake_llm.requests, fake_llm.request_headers, strict=True)
        if body.get("model") == agent
    ]
    assert len(sent) == 3 and set(sent) == {f"Bearer {AGENT_KEY}"}
