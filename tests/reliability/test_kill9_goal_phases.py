"""kill -9 at every phase of a goal, restart, resume: the goal completes and nothing is lost.

Each test holds one phase open (a slow agent or judge reply from the fake LLM server, a
terminal command or a `verify` that sleeps), waits for the evidence that the phase is under
way, kills the server with SIGKILL and starts a new one on the same folder. Then:

- `/server_info` has a new boot id, the goal is `interrupted` (reason "server restart"), and
  a conversation whose run was under way records a `RunLost` ConversationErrorEvent;
- every event a WebSocket client received before the kill is in the log exactly once, in
  the order it was received, and the log holds no id twice;
- a process the phase started (the terminal's or verify's `sleep`) is gone;
- `POST /goal/resume` with no body completes the goal, with the keys sent at create and in
  POST /goal (the server has no LLM_API_KEY: they come back unsealed).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from agent_server.harness import ServerProcess, unique, verdict, wait_goal_end, wait_until
from child_processes import Sleeper
from openhands.sdk.conversation.recording import RUN_LOST
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from waits import EVENT_WAIT

from .goal_restarts import (
    HELD,
    Phase,
    SocketRecorder,
    assert_each_seen_event_kept_once_in_order,
    boot_id,
    create_conversation,
    goal,
    judge_spec,
    keyed_models,
    read_log,
)

pytestmark = pytest.mark.timeout(300)

PHASE_WITHIN = EVENT_WAIT
"""Seconds a phase may take to be reached (servers and sandboxes start slowly under load)."""

DONE = FakeReply.text("done")
SLEEP_TOOL = "{sleep} > /dev/null 2>&1 & wait"
"""The agent's terminal command: a sleep that holds the tool call (found by its command line:
in a sandbox, a pid it printed would mean nothing outside its PID namespace)."""
VERIFY = "test -f ready || { {sleep} > /dev/null 2>&1 & sleep 0.5; touch verify.started; wait; }"
"""The goal's verify: holds until `ready` exists (created after the restart). The marker file
comes half a second after the sleep starts: the server registers the command's group with
its watchdog just after starting it, and the kill must test the guard, not that moment."""


@dataclass
class Case:
    """One phase: what the fake LLM answers before the kill, and what shows the phase runs."""

    agent_before: FakeReply | str = DONE  # a str: a terminal command ({sleep}: the sleeper)
    judge_before: FakeReply = field(default_factory=lambda: verdict(True))
    verify: str | None = None
    evidence: str = "post"  # "post", "agent", "judge", "tool" or "verify" (its sleep runs)
    run_lost: bool | None = None  # None: whatever the log said when the server died


CASES = {
    "right_after_post_goal": Case(agent_before=DONE.delayed(HELD)),
    "during_the_agent_llm_call": Case(
        agent_before=DONE.delayed(HELD), evidence="agent", run_lost=True
    ),
    "during_a_tool_command": Case(agent_before=SLEEP_TOOL, evidence="tool", run_lost=True),
    "during_the_judge_call": Case(
        judge_before=verdict(True).delayed(HELD), evidence="judge", run_lost=False
    ),
    "during_verify": Case(verify=VERIFY, evidence="verify", run_lost=False),
}


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    """The fake LLM server (held replies sleep in its daemon threads)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    """Servers a test starts; killed at the end whatever happened."""
    started: list[ServerProcess] = []
    yield started
    for process in started:
        process.kill()


def _disk_status(conversations: Path, cid: str) -> str | None:
    """The last execution status the log on disk records (read while no server runs)."""
    status = None
    with open(conversations / cid.replace("-", "") / "events.jsonl") as log:
        for line in log:
            event = json.loads(line)
            if event.get("kind") == "ConversationStateUpdateEvent" and (
                event.get("key") == "execution_status"
            ):
                status = event["value"]
    return status


def _wait_for_phase(
    case: Case, fake: FakeOpenAIServer, models: tuple[str, str], work: Path, sleeper: Sleeper
) -> bool:
    """Wait for the phase's evidence; True if the phase started the sleeper."""
    agent_model, judge_model = models
    if case.evidence == "agent":
        wait_until(lambda: fake.requests_for(agent_model), PHASE_WITHIN, "the agent's LLM call")
    elif case.evidence == "judge":
        wait_until(lambda: fake.requests_for(judge_model), PHASE_WITHIN, "the judge's LLM call")
    elif case.evidence == "tool":
        wait_until(sleeper.running, PHASE_WITHIN, "the tool's command")
        return True
    elif case.evidence == "verify":
        wait_until(lambda: (work / "verify.started").exists(), PHASE_WITHIN, "the verify command")
        return True
    return False


@pytest.mark.parametrize("phase", list(CASES))
def test_kill_9_then_restart_and_resume_completes_the_goal_losing_nothing(
    phase: str,
    tmp_path: Path,
    fake_llm: FakeOpenAIServer,
    servers: list[ServerProcess],
    sleeper: Sleeper,
) -> None:
    case = CASES[phase]
    agent_before = case.agent_before
    if isinstance(agent_before, str):
        command = agent_before.replace("{sleep}", sleeper.command)
        agent_before = FakeReply.tool_call("terminal", {"command": command})
    conversations, work = tmp_path / "conversations", tmp_path / "work"
    agent_model, judge_model = unique("agent"), unique("judge")
    keyed_models(fake_llm, agent_model, judge_model)
    held = Phase()
    fake_llm.set_responder(agent_model, held.replies(agent_before, DONE))
    fake_llm.set_responder(judge_model, held.replies(case.judge_before, verdict(True)))

    first = ServerProcess(conversations)
    servers.append(first.start())
    first_boot = boot_id(first)
    cid = create_conversation(
        first, fake_llm, agent_model, tools=("terminal",), workspace={"working_dir": str(work)}
    )
    recorder = SocketRecorder(first.socket(cid, resend_all="true"))
    body: dict[str, Any] = {
        "objective": "say done",
        "judge_llm": judge_spec(fake_llm, judge_model),
        "max_iterations": 3,
    }
    if case.verify is not None:
        body["verify"] = case.verify.replace("{sleep}", sleeper.command)
    with first.client() as http:
        started = http.post(f"/api/conversations/{cid}/goal", json=body)
    assert started.status_code == 200, started.text
    started_sleep = _wait_for_phase(case, fake_llm, (agent_model, judge_model), work, sleeper)

    first.kill()
    held.release()
    seen = recorder.stop()
    if started_sleep:  # the server's watchdog ends what the phase started
        assert sleeper.gone(15.0), "the phase's command outlived the killed server"
    left_running = _disk_status(conversations, cid) == "running"

    second = ServerProcess(conversations)
    servers.append(second.start())
    assert boot_id(second) != first_boot
    status = goal(second, cid)
    assert status is not None
    assert (status["status"], status["active"], status["reason"]) == (
        "interrupted",
        False,
        "server restart",
    )
    log = read_log(second, cid)
    assert_each_seen_event_kept_once_in_order(seen, log)
    run_lost = any(e.get("code") == RUN_LOST for e in log if e["kind"] == "ConversationErrorEvent")
    assert run_lost == left_running
    if case.run_lost is not None:
        assert run_lost == case.run_lost

    (work / "ready").touch()
    with second.client() as http:
        resumed = http.post(f"/api/conversations/{cid}/goal/resume")
    assert resumed.status_code == 200, resumed.text
    final = wait_goal_end(lambda: goal(second, cid), timeout=EVENT_WAIT)
    assert final["status"] == "complete", final
    after = read_log(second, cid)
    assert_each_seen_event_kept_once_in_order(seen, after)
