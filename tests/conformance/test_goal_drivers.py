"""One set of goal scenarios, run on every driver: `run_goal`, the server's built-in driver, and
the server with `OH_GOAL_BACKEND=temporal` (a real Temporal dev server and a worker).

Each scenario asserts the same final status, reason, number of judged rounds and order of
recorded goal phases on every driver: the rules are the SDK controller's, so no driver may
differ. Timing is driven by events: a held LLM reply answers only once the test has done
what it does "during" that call (pause, stop, a user message, a kill -9).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

from agent_server.harness import unique, verdict, wait_until
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

from .drivers import (
    WAIT,
    Conversation,
    GoalDriverHarness,
    Held,
    Setup,
    judge_spec,
    phases,
    script,
    wait_end,
    wait_phase,
)

THINK = FakeReply.tool_call("think", {"thought": "working on it"})
ASK = FakeReply.tool_call("terminal", {"command": "echo asked"})
"""A call that waits for approval under always-confirm (think and finish never do)."""
TERMINAL = ("terminal",)
DONE = FakeReply.text("done")
GARBAGE = FakeReply.text("It looks fine to me.")
PAUSED = "interrupted:conversation paused"
COMPLETE = "complete:None"
ONE_ROUND = ["agent", "judging", COMPLETE]
APPROVAL_TIME_LIMIT = float(os.environ.get("OH_TEST_APPROVAL_TIME_LIMIT_SECONDS", "3"))
"""The time limit of the approval scenario: the person answers after it has passed, and the
round after the approval must fit in it. That round counts ~0.03-0.2 s of goal time (measured
on all three drivers, also with both cores busy), so 3 s leaves it a wide margin and the
scenario waits 4 s per driver (it waited 9 s with an 8 s limit)."""


class Scenario:
    """One goal on a fresh conversation: its scripted agent and judge, and what it recorded."""

    def __init__(
        self,
        driver: GoalDriverHarness,
        fake: FakeOpenAIServer,
        agent: Sequence[FakeReply | Held],
        judge: Sequence[FakeReply | Held],
        **setup: Any,
    ) -> None:
        self.driver = driver
        self.agent_model, self.judge_model = unique("agent"), unique("judge")
        self.agent_held = script(fake, self.agent_model, agent)
        self.judge_held = script(fake, self.judge_model, judge)
        self.fake = fake
        self.conversation: Conversation = driver.create(Setup(self.agent_model, **setup))

    def body(self, objective: str = "make it so", **options: Any) -> dict[str, Any]:
        return {
            "objective": objective,
            "judge_llm": judge_spec(self.fake, self.judge_model),
            **options,
        }

    def start(self, **options: Any) -> None:
        self.driver.start(self.conversation, self.body(**options))

    def end(self) -> dict[str, Any]:
        return wait_end(self.driver, self.conversation)

    def phases(self) -> list[str]:
        return phases(self.driver.statuses(self.conversation))

    def release(self) -> None:
        for held in (*self.agent_held, *self.judge_held):
            held.release()


def _ended(scenario: Scenario) -> tuple[str, str | None, int]:
    final = scenario.end()
    return final["status"], final["reason"], final["iteration"]


# -- rounds, caps, verify, the judge -------------------------------------------------------


def test_complete_after_two_rounds(driver: GoalDriverHarness, fake_llm: FakeOpenAIServer) -> None:
    scenario = Scenario(driver, fake_llm, [DONE, DONE], [verdict(False, "tests"), verdict(True)])
    scenario.start()
    assert _ended(scenario) == ("complete", None, 2)
    assert scenario.phases() == ["agent", "judging", "agent", "judging", COMPLETE]


def test_capped_at_max_iterations(driver: GoalDriverHarness, fake_llm: FakeOpenAIServer) -> None:
    scenario = Scenario(driver, fake_llm, [DONE, DONE], [verdict(False, "x"), verdict(False, "x")])
    scenario.start(max_iterations=2)
    reason = "reached max_iterations (2) without a complete verdict"
    assert _ended(scenario) == ("capped", reason, 2)
    assert scenario.phases() == ["agent", "judging", "agent", "judging", f"capped:{reason}"]


def test_verify_failing_then_passing(driver: GoalDriverHarness, fake_llm: FakeOpenAIServer) -> None:
    touch = FakeReply.tool_call("terminal", {"command": "touch ok"})
    scenario = Scenario(
        driver,
        fake_llm,
        [FakeReply.text("not yet"), touch, DONE],
        [verdict(True), verdict(True)],
        tools=("terminal",),
    )
    scenario.start(verify="test -f ok")
    assert _ended(scenario) == ("complete", None, 2)
    assert scenario.phases() == [
        "agent",
        "verifying",
        "judging",
        "agent",
        "verifying",
        "judging",
        COMPLETE,
    ]


def test_one_garbage_judge_answer_only_means_not_complete(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    scenario = Scenario(driver, fake_llm, [DONE, DONE], [GARBAGE, verdict(True)])
    scenario.start()
    assert _ended(scenario) == ("complete", None, 2)
    assert scenario.phases() == ["agent", "judging", "agent", "judging", COMPLETE]


def test_three_garbage_judge_answers_in_a_row_interrupt(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    scenario = Scenario(driver, fake_llm, [DONE] * 3, [GARBAGE] * 3)
    scenario.start()
    reason = "the judge failed 3 times in a row"
    assert _ended(scenario) == ("interrupted", reason, 3)
    assert scenario.phases()[-1] == f"interrupted:{reason}"


# -- approval ----------------------------------------------------------------------------------


def _waiting(driver: GoalDriverHarness, fake_llm: FakeOpenAIServer, judge: list[Any]) -> Scenario:
    scenario = Scenario(driver, fake_llm, [ASK, DONE], judge, always_confirm=True, tools=TERMINAL)
    scenario.start()
    wait_phase(driver, scenario.conversation, "waiting_for_approval")
    return scenario


def test_an_approved_call_runs_and_the_goal_completes(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    scenario = _waiting(driver, fake_llm, [verdict(True)])
    driver.respond(scenario.conversation, accept=True)
    assert _ended(scenario) == ("complete", None, 1)
    assert scenario.phases() == ["agent", "waiting_for_approval", "agent", "judging", COMPLETE]
    assert "ObservationEvent" in driver.kinds(scenario.conversation)


def test_a_rejected_call_lets_the_agent_go_on_in_the_same_round(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    scenario = _waiting(driver, fake_llm, [verdict(True)])
    driver.respond(scenario.conversation, accept=False)
    assert _ended(scenario) == ("complete", None, 1)
    assert scenario.phases() == ["agent", "waiting_for_approval", "agent", "judging", COMPLETE]
    kinds = driver.kinds(scenario.conversation)
    assert "UserRejectObservation" in kinds and "ObservationEvent" not in kinds


def test_a_pause_while_waiting_for_approval_interrupts(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    scenario = _waiting(driver, fake_llm, [])
    driver.pause(scenario.conversation)
    assert _ended(scenario) == ("interrupted", "conversation paused", 0)
    assert scenario.phases() == ["agent", "waiting_for_approval", PAUSED]
    assert "ObservationEvent" not in driver.kinds(scenario.conversation)


def test_a_goal_started_on_a_waiting_conversation_waits_for_that_approval(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    scenario = Scenario(
        driver, fake_llm, [ASK, DONE], [verdict(True)], always_confirm=True, tools=TERMINAL
    )
    driver.message_and_run(scenario.conversation, "start")
    assert driver.execution_status(scenario.conversation) == "waiting_for_confirmation"
    scenario.start()
    wait_phase(driver, scenario.conversation, "waiting_for_approval")
    assert "ObservationEvent" not in driver.kinds(scenario.conversation)
    driver.respond(scenario.conversation, accept=True)
    assert _ended(scenario) == ("complete", None, 1)
    assert scenario.phases() == ["waiting_for_approval", "agent", "judging", COMPLETE]


# -- limits while the agent runs -----------------------------------------------------------


def test_the_cost_budget_pauses_the_run_and_caps_the_goal(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    priced = FakeReply.tool_call("think", {"thought": "spending"}, prompt_tokens=100)
    scenario = Scenario(
        driver, fake_llm, [priced] * 6 + [DONE], [verdict(False, "x")], cost_per_token=0.001
    )
    scenario.start(max_cost=0.25)  # each reply costs $0.10: the third one reaches it
    status, reason, rounds = _ended(scenario)
    assert (status, rounds) == ("capped", 1)
    assert reason is not None and reason.startswith("cost budget reached: $0.3000 spent")
    assert scenario.phases() == ["agent", "judging", f"capped:{reason}"]
    assert len(fake_llm.requests_for(scenario.agent_model)) == 3


def test_the_time_limit_pauses_the_run_and_caps_the_goal(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    held = Held(THINK)
    scenario = Scenario(driver, fake_llm, [THINK, held, DONE], [verdict(False, "x")])
    scenario.start(time_limit=1)
    # The run is held in an LLM call until the driver has paused it for the time limit.
    wait_until(
        lambda: "PauseEvent" in driver.kinds(scenario.conversation),
        WAIT,
        what="the pause for the time limit",
    )
    held.release()
    status, reason, rounds = _ended(scenario)
    assert (status, rounds) == ("capped", 1)
    assert reason is not None and reason.startswith("time limit reached")
    assert scenario.phases() == ["agent", "judging", f"capped:{reason}"]


# -- pauses, messages, hooks, stop ---------------------------------------------------------


def test_a_pause_while_the_agent_works_interrupts(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    held = Held(THINK)
    scenario = Scenario(driver, fake_llm, [held, DONE], [])
    scenario.start()
    held.wait_asked()
    driver.pause(scenario.conversation)
    held.release()
    assert _ended(scenario) == ("interrupted", "conversation paused", 0)
    assert scenario.phases() == ["agent", PAUSED]


def test_a_pause_while_verify_runs_interrupts_before_the_judge(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    scenario = Scenario(driver, fake_llm, [DONE], [])
    scenario.start(verify="until [ -e go ]; do sleep 0.05; done")
    wait_phase(driver, scenario.conversation, "verifying")
    driver.pause(scenario.conversation)
    (scenario.conversation.workdir / "go").touch()
    assert _ended(scenario) == ("interrupted", "conversation paused", 0)
    assert scenario.phases() == ["agent", "verifying", PAUSED]
    assert not fake_llm.requests_for(scenario.judge_model)


def test_a_pause_while_the_judge_decides_interrupts_after_the_round(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    held = Held(verdict(False, "x"))
    scenario = Scenario(driver, fake_llm, [DONE, DONE], [held])
    scenario.start()
    held.wait_asked()
    driver.pause(scenario.conversation)
    held.release()
    assert _ended(scenario) == ("interrupted", "conversation paused", 1)
    assert scenario.phases() == ["agent", "judging", PAUSED]


def test_a_user_message_during_a_round_interrupts(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    held = Held(THINK)
    scenario = Scenario(driver, fake_llm, [held, FakeReply.text("answered you")], [])
    scenario.start()
    held.wait_asked()
    driver.send(scenario.conversation, "wait, do something else")
    held.release()
    assert _ended(scenario) == ("interrupted", "user message", 0)
    assert scenario.phases() == ["agent", "interrupted:user message"]


def test_a_hook_refusing_the_follow_up_ends_the_goal_blocked(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    refuse = "if grep -q 'not complete yet'; then echo 'no follow-ups here' >&2; exit 2; fi; exit 0"
    hooks = {"user_prompt_submit": [{"matcher": "*", "hooks": [{"command": refuse}]}]}
    scenario = Scenario(driver, fake_llm, [DONE], [verdict(False, "x")], hooks=hooks)
    scenario.start()
    reason = "message blocked by a hook"
    assert _ended(scenario) == ("interrupted", reason, 1)
    assert scenario.phases() == ["agent", "judging", "agent", f"interrupted:{reason}"]
    assert "no follow-ups here" in (driver.goal(scenario.conversation) or {})["error"]


def test_stop_then_resume_completes(driver: GoalDriverHarness, fake_llm: FakeOpenAIServer) -> None:
    held = Held(THINK)
    scenario = Scenario(driver, fake_llm, [held, DONE], [verdict(True)])
    scenario.start()
    held.wait_asked()
    driver.stop(scenario.conversation)
    held.release()
    assert _ended(scenario) == ("interrupted", "stopped by user", 0)
    driver.resume(scenario.conversation)
    assert _ended(scenario) == ("complete", None, 1)
    assert scenario.phases() == [
        "agent",
        "interrupted:stopped by user",
        "agent",
        "judging",
        COMPLETE,
    ]


def test_a_kill_9_during_a_round_then_resume_completes(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    held = Held(THINK)
    scenario = Scenario(driver, fake_llm, [held, DONE], [verdict(True)])
    driver.start_killable(scenario.conversation, scenario.body())
    held.wait_asked()
    driver.restart()  # kill -9 the process driving the goal, then come back
    held.release()
    driver.resume(scenario.conversation)
    assert _ended(scenario) == ("complete", None, 1)
    assert scenario.phases() == [
        "agent",
        "interrupted:server restart",
        "agent",
        "judging",
        COMPLETE,
    ]


# -- snapshots, new limits, a person's time --------------------------------------------------


def test_the_workspace_is_snapshot_at_the_start_and_after_each_round(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    def write(name: str) -> FakeReply:
        return FakeReply.tool_call("terminal", {"command": f"echo {name} > {name}.txt"})

    scenario = Scenario(
        driver,
        fake_llm,
        [write("one"), DONE, write("two"), DONE],
        [verdict(False, "two.txt"), verdict(True)],
        tools=("terminal",),
    )
    scenario.start()
    assert _ended(scenario) == ("complete", None, 2)
    taken = driver.checkpoints(scenario.conversation)
    assert [(c["label"], c["goal_round"]) for c in taken] == [
        ("goal start", 0),
        ("round 1", 1),
        ("round 2", 2),
    ]
    assert [[f["path"] for f in c["changes"]] for c in taken] == [[], ["one.txt"], ["two.txt"]]


def test_a_capped_goal_continues_with_new_limits(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    scenario = Scenario(driver, fake_llm, [DONE, DONE], [verdict(False, "x"), verdict(True)])
    scenario.start(max_iterations=1)
    reason = "reached max_iterations (1) without a complete verdict"
    assert _ended(scenario) == ("capped", reason, 1)
    driver.resume(scenario.conversation, {"max_iterations": 2})
    assert _ended(scenario) == ("complete", None, 2)
    assert scenario.phases() == [
        "agent",
        "judging",
        f"capped:{reason}",
        "agent",
        "judging",
        COMPLETE,
    ]
    final = driver.goal(scenario.conversation) or {}
    assert final["limits"]["max_iterations"] == 2


def test_time_waiting_for_approval_is_not_counted_against_the_time_limit(
    driver: GoalDriverHarness, fake_llm: FakeOpenAIServer
) -> None:
    scenario = Scenario(
        driver, fake_llm, [ASK, DONE], [verdict(True)], always_confirm=True, tools=TERMINAL
    )
    # The pending call comes from a run before the goal, so the goal's clock starts stopped
    # (no LLM call, however slow, counts against it before the approval).
    driver.message_and_run(scenario.conversation, "start")
    scenario.start(time_limit=APPROVAL_TIME_LIMIT)
    wait_phase(driver, scenario.conversation, "waiting_for_approval")
    # The person takes longer than the whole time limit to answer: that is the point, so
    # this sleep is the scenario, not a guess at how long something takes.
    time.sleep(APPROVAL_TIME_LIMIT + 1)
    driver.respond(scenario.conversation, accept=True)
    assert _ended(scenario) == ("complete", None, 1)
    # Counted, the wait would have used the limit up: the run would have been skipped.
    assert scenario.phases() == ["waiting_for_approval", "agent", "judging", COMPLETE]
    assert (driver.goal(scenario.conversation) or {})["elapsed"] < APPROVAL_TIME_LIMIT
