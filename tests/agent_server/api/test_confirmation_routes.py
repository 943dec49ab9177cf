"""Human approval over REST: the policy route, approve and reject, a goal that waits for the
answer, bad input, and a wait that survives a server restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import ServerProcess, llm_spec, unique, verdict, wait_goal_end, wait_until

pytestmark = pytest.mark.slow

ALWAYS = {"policy": {"kind": "AlwaysConfirm"}}


def _status(client: httpx.Client, cid: str) -> str:
    return client.get(f"/api/conversations/{cid}").json()["execution_status"]


def _events(client: httpx.Client, cid: str, kind: str) -> list[dict[str, Any]]:
    response = client.get(
        f"/api/conversations/{cid}/events/search", params={"kind": kind, "limit": 100}
    )
    assert response.status_code == 200, response.text
    return response.json()["items"]


def _respond(client: httpx.Client, cid: str, **body: Any) -> httpx.Response:
    return client.post(f"/api/conversations/{cid}/events/respond_to_confirmation", json=body)


TERMINAL_AGENT_TOOLS = [{"name": "terminal"}]
"""The agents here have the terminal: `finish` and `think` never wait for approval."""

ECHO = FakeReply.tool_call("terminal", {"command": "echo approved"})


def _terminal_conversation(client: httpx.Client, fake_llm: FakeOpenAIServer, model: str) -> str:
    agent = {"kind": "Agent", "llm": llm_spec(fake_llm, model), "tools": TERMINAL_AGENT_TOOLS}
    response = client.post("/api/conversations", json={"agent": agent})
    assert response.status_code == 201, response.text
    return response.json()["id"]


@pytest.fixture
def conversation_id(client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str) -> str:
    """A fresh conversation whose agent has the terminal."""
    return _terminal_conversation(client, fake_llm, agent_model)


def _waiting(client: httpx.Client, cid: str, fake_llm: FakeOpenAIServer, model: str) -> None:
    """Script a terminal call, set AlwaysConfirm and run until the call waits for approval."""
    fake_llm.script(model, [ECHO, FakeReply.text("done")])
    assert client.post(f"/api/conversations/{cid}/confirmation_policy", json=ALWAYS).is_success
    message = {"role": "user", "content": [{"type": "text", "text": "go"}], "run": True}
    assert client.post(f"/api/conversations/{cid}/events", json=message).status_code == 200
    wait_until(lambda: _status(client, cid) == "waiting_for_confirmation", what="a wait")


def test_an_approved_call_runs_and_the_agent_finishes(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, conversation_id: str
) -> None:
    cid = conversation_id
    _waiting(client, cid, fake_llm, agent_model)
    assert _events(client, cid, "ObservationEvent") == []
    info = client.get(f"/api/conversations/{cid}").json()
    assert info["confirmation_policy"] == {"kind": "AlwaysConfirm"}

    assert _respond(client, cid, accept=True).json() == {"success": True}

    wait_until(lambda: _status(client, cid) == "finished", what="the end of the run")
    [observation] = _events(client, cid, "ObservationEvent")
    assert observation["tool_name"] == "terminal"


def test_a_rejected_call_is_recorded_with_its_reason_and_never_runs(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, conversation_id: str
) -> None:
    cid = conversation_id
    _waiting(client, cid, fake_llm, agent_model)

    assert _respond(client, cid, accept=False, reason="too risky").status_code == 200

    [rejection] = _events(client, cid, "UserRejectObservation")
    assert rejection["rejection_reason"] == "too risky"
    assert _status(client, cid) == "idle"
    assert client.post(f"/api/conversations/{cid}/run").status_code == 200
    wait_until(lambda: _status(client, cid) == "finished", what="the agent going on")
    assert _events(client, cid, "ObservationEvent") == []


def test_an_answer_when_nothing_waits_is_a_409(client: httpx.Client, conversation_id: str) -> None:
    response = _respond(client, conversation_id, accept=True)
    assert response.status_code == 409
    assert "waits for approval" in response.json()["detail"]


@pytest.mark.parametrize(
    ("route", "body", "field"),
    [
        ("events/respond_to_confirmation", {}, "accept"),
        ("events/respond_to_confirmation", {"accept": "perhaps"}, "accept"),
        ("confirmation_policy", {"policy": {"kind": "SometimesConfirm"}}, "policy"),
        (
            "confirmation_policy",
            {"policy": {"kind": "ConfirmRisky", "threshold": "UNKNOWN"}},
            "policy",
        ),
        ("security_analyzer", {"security_analyzer": {"kind": "Oracle"}}, "security_analyzer"),
    ],
)
def test_bad_input_is_a_422_naming_the_field(
    client: httpx.Client, conversation_id: str, route: str, body: dict[str, Any], field: str
) -> None:
    response = client.post(f"/api/conversations/{conversation_id}/{route}", json=body)
    assert response.status_code == 422, response.text
    assert field in response.text


def test_a_goal_waits_for_approval_and_completes_once_approved(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    cid = conversation_id
    fake_llm.script(agent_model, [ECHO, FakeReply.text("done")])
    fake_llm.script(judge_model, [verdict(True)])
    assert client.post(f"/api/conversations/{cid}/confirmation_policy", json=ALWAYS).is_success
    body = {"objective": "plan it", "judge_llm": judge}
    assert client.post(f"/api/conversations/{cid}/goal", json=body).status_code == 200

    goal = wait_until(
        lambda: (
            (g := client.get(f"/api/conversations/{cid}/goal").json())
            and g.get("phase") == "waiting_for_approval"
            and g
        ),
        what="the goal waiting for approval",
    )
    assert goal["status"] == "running" and goal["iteration"] == 0
    assert _status(client, cid) == "waiting_for_confirmation"

    assert _respond(client, cid, accept=True).status_code == 200

    ended = wait_goal_end(lambda: client.get(f"/api/conversations/{cid}/goal").json())
    assert ended["status"] == "complete"
    assert len(_events(client, cid, "ObservationEvent")) == 1


def test_a_wait_for_approval_survives_a_restart(tmp_path: Path, fake_llm: FakeOpenAIServer) -> None:
    model = unique("restart")
    first = ServerProcess(tmp_path / "conversations").start()
    try:
        with first.client() as client:
            cid = _terminal_conversation(client, fake_llm, model)
            _waiting(client, cid, fake_llm, model)
    finally:
        first.stop()
    second = ServerProcess(tmp_path / "conversations").start()
    try:
        with second.client() as client:
            assert _status(client, cid) == "waiting_for_confirmation"
            assert client.get(f"/api/conversations/{cid}").json()["confirmation_policy"] == {
                "kind": "AlwaysConfirm"
            }
            assert _respond(client, cid, accept=True).status_code == 200
            wait_until(lambda: _status(client, cid) == "finished", what="the approved run")
            assert len(_events(client, cid, "ObservationEvent")) == 1
    finally:
        second.stop()


def test_an_approval_rule_lets_matching_calls_run_without_asking(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, conversation_id: str
) -> None:
    cid = conversation_id
    rule = {"tool": "terminal", "command_prefix": "echo"}
    assert client.post(f"/api/conversations/{cid}/confirmation_policy", json=ALWAYS).is_success

    assert client.post(f"/api/conversations/{cid}/approval_rules", json=rule).status_code == 200

    assert client.get(f"/api/conversations/{cid}/approval_rules").json() == [rule]
    assert client.get(f"/api/conversations/{cid}").json()["approval_rules"] == [rule]
    fake_llm.script(
        agent_model,
        [
            ECHO,
            FakeReply.tool_call("terminal", {"command": "touch other.txt"}),
            FakeReply.text("done"),
        ],
    )
    message = {"role": "user", "content": [{"type": "text", "text": "go"}], "run": True}
    assert client.post(f"/api/conversations/{cid}/events", json=message).status_code == 200
    wait_until(lambda: _status(client, cid) == "waiting_for_confirmation", what="the 2nd call")
    [ran] = _events(client, cid, "ObservationEvent")
    assert "approved" in ran["observation"]["content"][0]["text"]
    assert client.get(f"/api/conversations/{cid}/approval_rules/suggested").json() == {
        "like_these": [{"tool": "terminal", "command_prefix": "touch"}],
        "tools": [{"tool": "terminal", "command_prefix": None}],
    }

    cleared = client.put(f"/api/conversations/{cid}/approval_rules", json={"rules": []})
    assert cleared.status_code == 200
    assert client.get(f"/api/conversations/{cid}/approval_rules").json() == []


@pytest.mark.parametrize(
    ("body", "field"),
    [({}, "tool"), ({"tool": "terminal", "command_prefix": " "}, "command_prefix")],
)
def test_a_bad_approval_rule_is_a_422_naming_the_field(
    client: httpx.Client, conversation_id: str, body: dict[str, Any], field: str
) -> None:
    response = client.post(f"/api/conversations/{conversation_id}/approval_rules", json=body)
    assert response.status_code == 422, response.text
    assert field in response.text
