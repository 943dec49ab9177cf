"""The goal routes end to end: status events over the socket, stop, resume, interjection."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any
from unittest.mock import ANY

import httpx
import pytest
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from ..harness import (
    HeldReplies,
    ServerProcess,
    goal_values,
    is_goal_end,
    verdict,
    wait_goal_end,
    wait_until,
)


def _goal(client: httpx.Client, cid: str) -> Any:
    return client.get(f"/api/conversations/{cid}/goal").json()


def _start(client: httpx.Client, cid: str, **body: Any) -> httpx.Response:
    return client.post(f"/api/conversations/{cid}/goal", json={"objective": "make it so", **body})


def _ended(client: httpx.Client, cid: str) -> dict[str, Any]:
    return wait_goal_end(lambda: _goal(client, cid))


def _status(client: httpx.Client, cid: str) -> str:
    return client.get(f"/api/conversations/{cid}").json()["execution_status"]


def _slow_step() -> FakeReply:
    return FakeReply.tool_call("think", {"thought": "working"}).delayed(1.0)


@pytest.mark.slow
def test_goal_streams_running_then_each_verdict_then_complete(
    server: ServerProcess,
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("first try"), FakeReply.text("fixed")])
    fake_llm.script(judge_model, [verdict(False, "tests"), verdict(True)])
    with server.socket(conversation_id) as socket:
        assert _start(client, conversation_id, judge_llm=judge).json() == {"success": True}
        statuses = goal_values(socket.until(is_goal_end))
    assert [(s["status"], s["active"], s["iteration"], s["phase"]) for s in statuses] == [
        ("running", True, 0, "agent"),
        ("running", True, 0, "judging"),
        ("running", True, 1, "agent"),
        ("running", True, 1, "judging"),
        ("complete", False, 2, None),
    ]
    assert statuses[2]["verdict"]["missing"] == "tests"
    assert statuses[2]["last_round"]["missing"] == "tests"
    assert statuses[4]["verdict"]["complete"] is True
    full = _goal(client, conversation_id)
    assert full["objective"] == "make it so"
    assert {**statuses[4], "objective": full["objective"]} == {**full, "objective_ref": ANY}


@pytest.mark.slow
def test_only_the_first_goal_status_event_carries_the_objective(
    server: ServerProcess,
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("first try"), FakeReply.text("fixed")])
    fake_llm.script(judge_model, [verdict(False, "tests"), verdict(True)])
    objective = "make it so. " + "Every word of this specification counts. " * 200
    with server.socket(conversation_id) as socket:
        assert _start(client, conversation_id, judge_llm=judge, objective=objective).is_success
        events = [e for e in socket.until(is_goal_end) if e.get("key") == "goal"]
    assert events[0]["value"]["objective"] == objective.strip()
    assert all("objective" not in e["value"] for e in events[1:])
    assert {e["value"]["objective_ref"] for e in events[1:]} == {events[0]["id"]}
    assert _goal(client, conversation_id)["objective"] == objective.strip()


def test_goal_events_are_persisted_in_the_log(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("done")])
    fake_llm.script(judge_model, [verdict(True)])
    _start(client, conversation_id, judge_llm=judge)
    _ended(client, conversation_id)
    items = client.get(
        f"/api/conversations/{conversation_id}/events/search",
        params={"kind": "ConversationStateUpdateEvent"},
    ).json()["items"]
    assert [v["status"] for v in goal_values(items)] == ["running", "running", "complete"]


def test_goal_is_capped_at_max_iterations(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("try"), FakeReply.text("again")])
    fake_llm.script(judge_model, [verdict(False, "a"), verdict(False, "b")])
    _start(client, conversation_id, judge_llm=judge, max_iterations=2)
    status = _ended(client, conversation_id)
    assert (status["status"], status["iteration"]) == ("capped", 2)
    assert "max_iterations" in status["reason"]


def test_a_capped_goal_continues_only_with_new_limits(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("try"), FakeReply.text("again")])
    fake_llm.script(judge_model, [verdict(False, "a"), verdict(True)])
    _start(client, conversation_id, judge_llm=judge, max_iterations=1)
    assert _ended(client, conversation_id)["status"] == "capped"
    resume = f"/api/conversations/{conversation_id}/goal/resume"

    plain = client.post(resume)
    assert (plain.status_code, plain.json()["detail"]) == (400, "no_resumable_goal")
    assert "new limits" in plain.json()["message"]
    no_room = client.post(resume, json={"max_iterations": 1})
    assert no_room.status_code == 422
    assert no_room.json()["detail"][0]["loc"] == ["body", "max_iterations"]
    assert "more than the 1 rounds already done" in no_room.json()["message"]
    negative = client.post(resume, json={"max_cost": -1})
    assert negative.status_code == 422
    assert negative.json()["detail"][0]["loc"] == ["body", "max_cost"]

    assert client.post(resume, json={"max_iterations": 3}).json() == {"success": True}
    status = _ended(client, conversation_id)
    assert (status["status"], status["iteration"]) == ("complete", 2)
    assert status["limits"]["max_iterations"] == 3


def test_failing_verify_keeps_a_fooled_judge_from_completing(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("all tests pass, trust me")])
    fake_llm.script(judge_model, [verdict(True)])
    _start(client, conversation_id, judge_llm=judge, max_iterations=1, verify="echo nope; exit 3")
    status = _ended(client, conversation_id)
    assert status["status"] == "capped"
    assert status["verify"]["exit_code"] == 3
    assert status["verify_command"] == "echo nope; exit 3"


@pytest.mark.slow
def test_stop_interrupts_and_pauses_then_resume_completes(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [_slow_step(), FakeReply.text("done now")])
    fake_llm.script(judge_model, [verdict(True)])
    _start(client, conversation_id, judge_llm=judge)
    wait_until(lambda: fake_llm.requests_for(agent_model), what="the agent's first call")
    assert client.post(f"/api/conversations/{conversation_id}/goal/stop").status_code == 200
    stopped = _goal(client, conversation_id)
    assert (stopped["status"], stopped["active"]) == ("interrupted", False)
    assert stopped["reason"] == "stopped by user"
    assert stopped["error"] is None
    wait_until(lambda: _status(client, conversation_id) == "paused", what="the pause")
    assert fake_llm.remaining(agent_model) == 1  # the agent stopped after its current step

    assert client.post(f"/api/conversations/{conversation_id}/goal/resume").status_code == 200
    final = _ended(client, conversation_id)
    assert final["status"] == "complete"
    assert final["objective"] == "make it so"


@pytest.mark.slow
def test_a_pause_while_the_judge_decides_interrupts_the_goal(
    server: ServerProcess,
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("first try"), FakeReply.text("second try")])
    judge_calls = HeldReplies(verdict(False, "tests"), verdict(True))  # judging until paused
    fake_llm.set_responder(judge_model, judge_calls)
    with server.socket(conversation_id) as socket:
        _start(client, conversation_id, judge_llm=judge)
        try:
            socket.until(lambda e: e.get("key") == "goal" and e["value"]["phase"] == "judging")
            assert client.post(f"/api/conversations/{conversation_id}/pause").status_code == 200
        finally:
            judge_calls.release()
        ended = goal_values(socket.until(is_goal_end))[-1]
    assert (ended["status"], ended["reason"], ended["error"]) == (
        "interrupted",
        "conversation paused",
        None,
    )
    assert len(fake_llm.requests_for(agent_model)) == 1  # no second round was started
    assert _status(client, conversation_id) == "paused"


def test_a_user_message_interrupts_the_goal_before_it_is_appended(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [_slow_step(), FakeReply.text("ok, switching")])
    _start(client, conversation_id, judge_llm=judge)
    wait_until(lambda: fake_llm.requests_for(agent_model), what="the agent's first call")
    body = {"content": [{"type": "text", "text": "actually, do something else"}]}
    client.post(f"/api/conversations/{conversation_id}/events", json=body)
    status = _goal(client, conversation_id)
    assert (status["status"], status["reason"], status["active"]) == (
        "interrupted",
        "user message",
        False,
    )
    log = client.get(f"/api/conversations/{conversation_id}/events/search").json()["items"]
    kinds = [
        "goal-interrupted"
        if e.get("key") == "goal" and e["value"]["status"] == "interrupted"
        else "user-message"
        if e["kind"] == "MessageEvent" and "something else" in str(e["llm_message"])
        else "other"
        for e in log
    ]
    assert kinds.index("goal-interrupted") < kinds.index("user-message")


def test_judge_failures_interrupt_with_the_real_error(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.text(f"try {i}") for i in range(3)])
    fake_llm.script(judge_model, [FakeReply.error(500, "judge is down")] * 3)
    _start(client, conversation_id, judge_llm=judge, max_iterations=5)
    status = _ended(client, conversation_id)
    assert status["status"] == "interrupted"
    assert "judge" in status["error"]
    assert "judge is down" in status["error"]


def test_agent_failure_interrupts_with_the_error(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.error(400, "bad request for agent")])
    _start(client, conversation_id, judge_llm=judge)
    status = _ended(client, conversation_id)
    assert status["status"] == "interrupted"
    assert "bad request for agent" in status["error"]


def test_a_goal_message_blocked_by_a_hook_interrupts_saying_so_without_a_traceback(
    server: ServerProcess, client: httpx.Client, make_conversation: Callable[..., str]
) -> None:
    block = {"hooks": [{"command": "echo 'no goals here' >&2; exit 2"}]}
    cid = make_conversation(hook_config={"UserPromptSubmit": [block]})
    assert _start(client, cid).status_code == 200
    ended = _ended(client, cid)
    assert (ended["status"], ended["reason"]) == ("interrupted", "message blocked by a hook")
    assert "no goals here" in ended["error"]
    assert "goal driver failed" not in server.log()


def test_default_judge_is_the_agents_llm_as_goal_judge(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, conversation_id: str
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("done"), verdict(True)])
    _start(client, conversation_id)
    assert _ended(client, conversation_id)["status"] == "complete"
    metrics = client.get(f"/api/conversations/{conversation_id}").json()["metrics"]
    assert metrics["goal-judge"]["completions"] == 1


def test_a_requested_judge_is_counted_apart_from_the_agent(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("done")])
    fake_llm.script(judge_model, [verdict(True)])
    _start(client, conversation_id, judge_llm=judge)
    _ended(client, conversation_id)
    metrics = client.get(f"/api/conversations/{conversation_id}").json()["metrics"]
    assert metrics["default"]["completions"] == 1
    assert metrics["goal-judge"]["completions"] == 1


def test_concurrent_starts_give_one_200_and_the_rest_409(
    server: ServerProcess,
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    # The winner's agent answers only once every start has been answered: its goal is still
    # running when the last POST arrives, however slowly a loaded machine serves them (with a
    # fixed reply delay a goal could end first, and a later start would rightly win too).
    answered = threading.Event()

    def hold_until_answered(body: dict[str, Any]) -> FakeReply:
        answered.wait(timeout=120)
        return FakeReply.text("done")

    fake_llm.set_responder(agent_model, hold_until_answered)
    fake_llm.script(judge_model, [verdict(True)])
    codes: list[int] = []
    barrier = threading.Barrier(8)

    def start() -> None:
        with server.client() as http:
            barrier.wait()
            codes.append(_start(http, conversation_id, judge_llm=judge).status_code)

    threads = [threading.Thread(target=start) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    answered.set()
    assert sorted(codes) == [200] + [409] * 7
    assert _ended(client, conversation_id)["status"] == "complete"


def test_goal_routes_of_unknown_conversation_are_404(client: httpx.Client) -> None:
    base = f"/api/conversations/{uuid.uuid4()}/goal"
    assert client.get(base).status_code == 404
    assert client.post(base, json={"objective": "x"}).status_code == 404
    assert client.post(f"{base}/stop").status_code == 404
    assert client.post(f"{base}/resume").status_code == 404


def test_no_goal_yet_reads_null(client: httpx.Client, conversation_id: str) -> None:
    assert _goal(client, conversation_id) is None


def test_resume_with_nothing_to_resume_is_400_no_resumable_goal(
    client: httpx.Client, conversation_id: str
) -> None:
    response = client.post(f"/api/conversations/{conversation_id}/goal/resume")
    assert response.status_code == 400
    assert response.json()["detail"] == "no_resumable_goal"
    assert "no goal to resume" in response.json()["message"]


def test_resume_of_a_completed_goal_is_400(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("done")])
    fake_llm.script(judge_model, [verdict(True)])
    _start(client, conversation_id, judge_llm=judge)
    _ended(client, conversation_id)
    response = client.post(f"/api/conversations/{conversation_id}/goal/resume")
    assert (response.status_code, response.json()["detail"]) == (400, "no_resumable_goal")


def test_stop_without_a_goal_is_a_no_op(client: httpx.Client, conversation_id: str) -> None:
    response = client.post(f"/api/conversations/{conversation_id}/goal/stop")
    assert response.json() == {"success": True}
    assert _goal(client, conversation_id) is None


def test_blank_objective_is_422_naming_objective(
    client: httpx.Client, conversation_id: str
) -> None:
    response = client.post(f"/api/conversations/{conversation_id}/goal", json={"objective": " "})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "objective"]
    assert "objective" in response.json()["message"]


def test_a_nul_byte_in_verify_is_422_naming_verify(
    client: httpx.Client, conversation_id: str
) -> None:
    response = _start(client, conversation_id, verify="pytest -q\x00")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "verify"]
    assert "NUL" in response.json()["message"]
    assert _goal(client, conversation_id) is None


def test_zero_max_iterations_is_422_naming_it(client: httpx.Client, conversation_id: str) -> None:
    response = _start(client, conversation_id, max_iterations=0)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "max_iterations"]


@pytest.mark.parametrize("field", ["max_cost", "time_limit"])
def test_a_negative_budget_is_422_naming_it(
    client: httpx.Client, conversation_id: str, field: str
) -> None:
    response = _start(client, conversation_id, **{field: -1})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", field]
    assert "0 or null: unlimited" in response.json()["message"]


def test_zero_budgets_mean_unlimited_as_in_the_sdk(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [FakeReply.text("done")])
    fake_llm.script(judge_model, [verdict(True)])
    response = _start(client, conversation_id, judge_llm=judge, max_cost=0, time_limit=0)
    assert response.status_code == 200, response.text
    status = _ended(client, conversation_id)
    limits = status["limits"]
    assert (status["status"], limits["max_cost"], limits["time_limit"]) == ("complete", None, None)


def test_start_while_the_conversation_runs_is_409(
    client: httpx.Client, fake_llm: FakeOpenAIServer, agent_model: str, conversation_id: str
) -> None:
    fake_llm.script(agent_model, [_slow_step(), FakeReply.text("done")])
    body = {"content": [{"type": "text", "text": "go"}], "run": True}
    client.post(f"/api/conversations/{conversation_id}/events", json=body)
    response = _start(client, conversation_id)
    assert response.status_code == 409
    assert "running" in response.json()["message"]


@pytest.mark.slow
def test_run_while_a_goal_drives_is_409(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
) -> None:
    fake_llm.script(agent_model, [_slow_step(), FakeReply.text("done")])
    fake_llm.script(judge_model, [verdict(True)])
    _start(client, conversation_id, judge_llm=judge)
    assert client.post(f"/api/conversations/{conversation_id}/run").status_code == 409
    assert _start(client, conversation_id, judge_llm=judge).status_code == 409
    _ended(client, conversation_id)


@pytest.mark.slow
def test_health_answers_while_ten_goals_run(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    make_conversation: Callable[..., str],
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
) -> None:
    ids = [make_conversation() for _ in range(10)]
    agent = HeldReplies(FakeReply.text("done"))  # every call waits until the checks ran
    fake_llm.set_responder(agent_model, agent)
    fake_llm.set_responder(judge_model, lambda _body: verdict(True))
    try:
        for cid in ids:
            assert _start(client, cid, judge_llm=judge).status_code == 200
        wait_until(lambda: len(fake_llm.requests_for(agent_model)) == 10, what="ten agent calls")
        assert client.get("/health").status_code == 200
        assert all(_goal(client, cid)["active"] for cid in ids)
    finally:
        agent.release()
    for cid in ids:
        assert _ended(client, cid)["status"] == "complete"


def _step(client: httpx.Client, cid: str, body: dict[str, Any]) -> httpx.Response:
    return client.post(f"/api/conversations/{cid}/goal/steps", json=body)


def test_a_step_from_a_run_that_does_not_drive_the_goal_is_409(
    client: httpx.Client, conversation_id: str
) -> None:
    body = {"run": "not-a-run", "step_id": "1", "step": {"kind": "await_approval"}}
    response = _step(client, conversation_id, body)
    assert response.status_code == 409, response.text
    assert "does not drive" in response.json()["detail"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"run": "r", "step_id": "1", "step": {"kind": "launch_rockets"}}, "step"),
        ({"run": "r", "step_id": "1"}, "step"),
        ({"run": "r", "step_id": "1", "step": {"kind": "await_approval"}, "wait": 3600}, "wait"),
        ({"run": "", "step_id": "1", "step": {"kind": "await_approval"}}, "run"),
    ],
)
def test_a_bad_step_request_is_422_naming_the_field(
    client: httpx.Client, conversation_id: str, body: dict[str, Any], field: str
) -> None:
    response = _step(client, conversation_id, body)
    assert response.status_code == 422, response.text
    assert field in response.text


def test_both_goal_bodies_drop_a_field_of_another_version_and_keep_the_rest(
    client: httpx.Client,
    fake_llm: FakeOpenAIServer,
    agent_model: str,
    judge_model: str,
    judge: dict[str, Any],
    conversation_id: str,
    server: ServerProcess,
) -> None:
    """POST /goal and POST /goal/resume follow one rule for fields this version does not
    know: dropped with a log line, never a 422 (and a bad known field is still refused)."""
    fake_llm.script(agent_model, [FakeReply.text("step one")])
    fake_llm.script(judge_model, [verdict(False, "more")])
    started = _start(client, conversation_id, judge_llm=judge, max_iterations=1, goal_mode="strict")
    assert started.status_code == 200, started.text
    assert _ended(client, conversation_id)["status"] == "capped"
    refused = client.post(
        f"/api/conversations/{conversation_id}/goal/resume",
        json={"max_iterations": 0, "critic": {"kind": "x"}},
    )
    assert refused.status_code == 422, refused.text
    assert "max_iterations" in refused.json()["message"]
    fake_llm.script(agent_model, [FakeReply.text("step two")])
    fake_llm.script(judge_model, [verdict(True)])
    resumed = client.post(
        f"/api/conversations/{conversation_id}/goal/resume",
        json={"max_iterations": 2, "critic": {"kind": "x"}},
    )
    assert resumed.status_code == 200, resumed.text
    assert _ended(client, conversation_id)["status"] == "complete"
    assert "goal_mode" in server.log() and "critic" in server.log()
