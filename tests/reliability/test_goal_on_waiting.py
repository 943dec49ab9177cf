"""A goal started while a tool call waits for approval waits for that same approval.

Before, `POST /goal` on a conversation with `AlwaysConfirm` and one pending terminal call sent
the goal's message and ran the agent, and running a waiting conversation approves what
waits: the command ran without anyone answering. Now the goal's first phase is
`waiting_for_approval`; the command runs once approved (or never, when rejected), then the
goal's rounds go on. Tried on the running server and after kill -9 and a restart, with the
goal's `verify` (run in the sandbox when OH_SANDBOX is on) checking what the command did.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from agent_server.harness import (
    ServerProcess,
    llm_spec,
    unique,
    verdict,
    wait_goal_end,
    wait_until,
)
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from waits import EVENT_WAIT

MARKER = "approved-command-ran.txt"


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake LLM server, shared by the module's tests."""
    with FakeOpenAIServer() as server:
        yield server


def _status(http: httpx.Client, cid: str) -> str:
    return http.get(f"/api/conversations/{cid}").json()["execution_status"]


def _goal(http: httpx.Client, cid: str) -> dict[str, Any] | None:
    return http.get(f"/api/conversations/{cid}/goal").json()


def _waiting_conversation(
    server: ServerProcess, fake: FakeOpenAIServer, model: str
) -> tuple[str, Path]:
    """An AlwaysConfirm conversation whose terminal call `touch MARKER` waits for approval."""
    agent = {"kind": "Agent", "llm": llm_spec(fake, model), "tools": [{"name": "terminal"}]}
    body = {"agent": agent, "confirmation_policy": {"kind": "AlwaysConfirm"}}
    fake.script(
        model,
        [
            FakeReply.tool_call("terminal", {"command": f"touch {MARKER}"}),
            FakeReply.text("done with the first task"),
            FakeReply.text("goal done"),
        ],
    )
    with server.client() as http:
        created = http.post("/api/conversations", json=body)
        assert created.status_code == 201, created.text
        cid = created.json()["id"]
        message = {"role": "user", "content": [{"type": "text", "text": "go"}], "run": True}
        assert http.post(f"/api/conversations/{cid}/events", json=message).status_code == 200
        wait_until(
            lambda: _status(http, cid) == "waiting_for_confirmation",
            timeout=120,
            what="the terminal call to wait for approval",
        )
    return cid, Path(created.json()["workspace"]["working_dir"])


@pytest.mark.parametrize("restart", [False, True], ids=["running", "after-kill-9"])
@pytest.mark.parametrize("answer", ["approve", "reject"])
def test_a_goal_waits_for_the_pending_approval_instead_of_giving_it(
    tmp_path: Path, fake_llm: FakeOpenAIServer, restart: bool, answer: str
) -> None:
    model, judge = unique("agent"), unique("judge")
    server = ServerProcess(tmp_path / "conversations").start()
    try:
        cid, workspace = _waiting_conversation(server, fake_llm, model)
        if restart:
            server.kill()
            server = ServerProcess(tmp_path / "conversations").start()
        fake_llm.script(judge, [verdict(True)])
        check = f"test -f {MARKER}" if answer == "approve" else f"! test -e {MARKER}"
        goal = {"objective": "finish", "verify": check, "judge_llm": llm_spec(fake_llm, judge)}
        with server.client() as http:
            started = http.post(f"/api/conversations/{cid}/goal", json=goal)
            assert started.status_code == 200, started.text
            status = wait_until(
                lambda: (g := _goal(http, cid)) and g["phase"] == "waiting_for_approval" and g,
                timeout=60,
                what="the goal to wait for the pending approval",
            )
            # The goal records this phase before it runs anything: nothing ran unasked.
            assert status["active"] and status["iteration"] == 0, status
            assert _status(http, cid) == "waiting_for_confirmation"
            assert not (workspace / MARKER).exists()

            decision = {"accept": answer == "approve", "reason": "not now"}
            responded = http.post(
                f"/api/conversations/{cid}/events/respond_to_confirmation", json=decision
            )
            assert responded.status_code == 200, responded.text
            ended = wait_goal_end(lambda: _goal(http, cid), timeout=EVENT_WAIT)

            assert ended["status"] == "complete", ended
            assert ended["verify"]["exit_code"] == 0, ended["verify"]
            assert (workspace / MARKER).exists() is (answer == "approve")
            rejected = http.get(
                f"/api/conversations/{cid}/events/search",
                params={"kind": "UserRejectObservation", "limit": 10},
            ).json()["items"]
            assert len(rejected) == (answer == "reject")
    finally:
        server.stop()
