"""run_goal on a real LocalConversation: turns, chip events, failures, resume, persistence."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from goal_helpers import GoalConversation, finish, goal_chips, judge_json, think, user_texts
from openhands.sdk import (
    ActionEvent,
    Agent,
    ConversationExecutionStatus,
    ConversationStateUpdateEvent,
    Event,
    LocalConversation,
    Message,
)
from openhands.sdk.agent import AgentBase
from openhands.sdk.contracts import ConversationStateView
from openhands.sdk.conversation import load_conversation_summary
from openhands.sdk.conversation.goal import (
    ROUND_ENDING_ERRORS,
    GoalStatus,
    GoalStop,
    InvalidGoalError,
    NoResumableGoalError,
    RunEnd,
    last_goal_status,
    resume_goal,
    run_goal,
)
from openhands.sdk.hooks import HookConfig
from openhands.sdk.llm import LLMResponse, LLMTransientError
from openhands.sdk.testing import TestLLM
from openhands.sdk.workspace import LocalWorkspace
from pydantic import PrivateAttr


def judge(*replies: Message | Exception, costs: tuple[float, ...] = ()) -> TestLLM:
    return TestLLM.from_messages(list(replies), usage_id="judge", costs=costs)


def test_the_goal_reprompts_until_the_judge_finds_it_complete(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish("first try"), finish("second try")])
    outcome = run_goal(
        conversation,
        "Create hello.txt",
        judge(judge_json(0.5, False, ["hello.txt is not shown"]), judge_json(1.0, True)),
    )
    assert outcome.status == "complete"
    assert outcome.iterations == 2
    messages = user_texts(list(conversation.state.events))
    assert messages[0] == "Create hello.txt"
    assert "hello.txt is not shown" in messages[1]
    assert len(messages) == 2


def test_every_turn_lands_in_the_conversation_events(goal_conversation: GoalConversation) -> None:
    conversation = goal_conversation([finish("one"), finish("two")])
    run_goal(conversation, "Do it", judge(judge_json(0.2), judge_json(1.0, True)))
    actions = [e for e in conversation.state.events if isinstance(e, ActionEvent)]
    assert [a.action and a.action.model_dump() for a in actions] == [
        {"message": "one"},
        {"message": "two"},
    ]


def test_chip_events_mark_start_each_phase_each_round_and_the_end(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish(), finish()])
    run_goal(conversation, "Do it", judge(judge_json(0.4, False, ["x"]), judge_json(1.0, True)))
    chips = goal_chips(list(conversation.state.events))
    assert [(c["status"], c["active"], c["iteration"], c["phase"]) for c in chips] == [
        ("running", True, 0, "agent"),
        ("running", True, 0, "judging"),
        ("running", True, 1, "agent"),
        ("running", True, 1, "judging"),
        ("complete", False, 2, None),
    ]
    assert chips[2]["verdict"]["missing"] == "x"
    assert chips[4]["verdict"]["complete"] is True


def test_a_verify_command_adds_a_verifying_phase_before_judging(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish()])
    run_goal(conversation, "Do it", judge(judge_json(1.0, True)), verify="true")
    phases = [c["phase"] for c in goal_chips(list(conversation.state.events))]
    assert phases == ["agent", "verifying", "judging", None]


def test_each_judged_round_is_summarised_for_a_timeline(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish(), finish()], costs=[0.5, 0.25])
    run_goal(
        conversation,
        "Do it",
        judge(judge_json(0.4, False, "tests"), judge_json(1.0, True), costs=(0.01, 0.02)),
        verify="true",
    )
    rounds = {
        c["last_round"]["iteration"]: c["last_round"]
        for c in goal_chips(list(conversation.state.events))
        if c["last_round"]
    }
    assert [
        (r["score"], r["missing"], r["verify_exit_code"], r["agent_cost"], r["judge_cost"])
        for r in rounds.values()
    ] == [(0.4, "tests", 0, 0.5, 0.01), (1.0, "", 0, 0.25, 0.02)]


def test_on_status_gets_every_recorded_status_with_the_objective(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish(), finish()])
    seen: list[GoalStatus] = []
    run_goal(
        conversation,
        "Do it",
        judge(judge_json(0.4), judge_json(1.0, True)),
        on_status=seen.append,
    )
    chips = goal_chips(list(conversation.state.events))
    assert [(s.status, s.phase, s.iteration) for s in seen] == [
        (c["status"], c["phase"], c["iteration"]) for c in chips
    ]
    assert {s.objective for s in seen} == {"Do it"}


def test_the_objective_is_written_once_and_read_back_whole(
    goal_conversation: GoalConversation,
) -> None:
    objective = "Build it. " + "Every detail of the specification matters. " * 500
    conversation = goal_conversation([finish(), finish()])
    run_goal(conversation, objective, judge(judge_json(0.4), judge_json(1.0, True)))
    events = list(conversation.state.events)
    goal_events = [e for e in events if isinstance(e, ConversationStateUpdateEvent)]
    goal_events = [e for e in goal_events if e.key == "goal"]
    assert "objective" in goal_events[0].value
    assert all("objective" not in e.value for e in goal_events[1:])
    assert {e.value["objective_ref"] for e in goal_events[1:]} == {goal_events[0].id}
    status = last_goal_status(conversation.state.events)
    assert status is not None and status.objective == objective.strip()


def test_a_judge_saying_complete_cannot_finish_a_goal_whose_verify_fails(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish("all tests pass!"), finish("really, they pass")])
    outcome = run_goal(
        conversation,
        "Make the tests pass",
        judge(judge_json(1.0, True), judge_json(1.0, True)),
        max_iterations=2,
        verify="echo '1 failed'; exit 1",
    )
    assert outcome.status == "capped"
    assert outcome.verify is not None and outcome.verify.exit_code == 1
    followup = user_texts(list(conversation.state.events))[1]
    assert "exited with code 1" in followup and "1 failed" in followup


def test_verify_runs_in_the_workspace_after_each_round(
    goal_conversation: GoalConversation, workspace_dir: Path
) -> None:
    conversation = goal_conversation([finish(), finish()])
    # Fails the first time (and leaves a flag), passes the second: a real command each round.
    outcome = run_goal(
        conversation,
        "Make it pass",
        judge(judge_json(1.0, True), judge_json(1.0, True)),
        verify="test -f flag || { touch flag; exit 1; }",
    )
    assert outcome.status == "complete" and outcome.iterations == 2
    assert (workspace_dir / "flag").exists()


def test_an_agent_llm_failure_interrupts_the_goal_with_the_error(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([LLMTransientError("agent provider down")])
    outcome = run_goal(conversation, "Do it", judge())
    assert outcome.status == "interrupted"
    assert outcome.iterations == 1
    assert "agent provider down" in (outcome.error or "")
    last = goal_chips(list(conversation.state.events))[-1]
    assert (last["status"], last["active"]) == ("interrupted", False)
    assert "agent provider down" in last["error"]


def test_a_run_hitting_its_step_cap_is_a_round_that_gets_judged(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([think("plan"), finish("done")], max_iteration_per_run=1)
    outcome = run_goal(conversation, "Do it", judge(judge_json(0.5), judge_json(1.0, True)))
    assert outcome.status == "complete"
    assert outcome.iterations == 2


def test_a_run_that_hits_its_step_cap_ends_with_the_code_that_only_ends_a_round(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([think("plan"), think("more")], max_iteration_per_run=1)
    conversation.send_message("Do it")
    conversation.run()  # returns: the step cap is a status, as in the reference

    state = conversation.state
    end = RunEnd.after_run(state.execution_status, state.events)

    assert end.status == ConversationExecutionStatus.ERROR
    assert end.code == "MaxIterationsReached"
    assert end.code in ROUND_ENDING_ERRORS
    assert end.error is not None and "max_iteration_per_run" in end.error


def test_a_finished_run_ends_without_an_error(goal_conversation: GoalConversation) -> None:
    conversation = goal_conversation([finish("done")])
    conversation.send_message("Do it")
    conversation.run()

    state = conversation.state
    end = RunEnd.after_run(state.execution_status, state.events)

    assert (end.status, end.code, end.error) == (ConversationExecutionStatus.FINISHED, None, None)


def test_the_judge_cost_is_kept_in_the_conversation_stats_and_on_disk(
    goal_conversation: GoalConversation, persistence_dir: Path
) -> None:
    conversation = goal_conversation([finish("one"), finish("two")], persist=True)
    judge_llm = judge(judge_json(0.5), judge_json(1.0, True), costs=(0.25, 0.5))

    run_goal(conversation, "Do it", judge_llm)

    assert conversation.conversation_stats.get_metrics_for_usage("judge").accumulated_cost == 0.75
    # On disk before any close: the last judge call came after the last run ended.
    summary = load_conversation_summary(persistence_dir, conversation.id)
    assert summary is not None
    assert summary.stats.get_metrics_for_usage("judge").accumulated_cost == 0.75


def test_a_judge_sharing_the_agents_usage_id_does_not_replace_its_stats(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish("one")], costs=[0.1])
    judge_llm = TestLLM.from_messages([judge_json(1.0, True)], usage_id="agent", costs=[5.0])

    run_goal(conversation, "Do it", judge_llm)

    agent_metrics = conversation.conversation_stats.get_metrics_for_usage("agent")
    assert agent_metrics is conversation.agent.llm.metrics
    assert agent_metrics.accumulated_cost == 0.1


def test_a_user_pause_interrupts_the_goal(goal_conversation: GoalConversation) -> None:
    conversation = goal_conversation([think("a"), think("b"), finish()])

    def pause_on_first_action(event: Event) -> None:
        if isinstance(event, ActionEvent):
            conversation.pause()

    conversation.add_callback(pause_on_first_action)
    outcome = run_goal(conversation, "Do it", judge(judge_json(1.0, True)))
    assert outcome.status == "interrupted"
    assert (outcome.reason, outcome.error) == ("conversation paused", None)


class PausingJudge(TestLLM):
    """A judge during whose call someone pauses the conversation."""

    _conversation: Any = PrivateAttr(default=None)

    def pausing(self, conversation: LocalConversation) -> PausingJudge:
        """Pause `conversation` at each judge call."""
        self._conversation = conversation
        return self

    def _complete(self, messages: list[Message], tools: Any, stream: bool) -> LLMResponse:
        self._conversation.pause()
        return super()._complete(messages, tools, stream)


def test_a_pause_while_the_judge_decides_interrupts_the_goal(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish(), finish()])
    slow_judge = PausingJudge.from_messages([judge_json(0.4), judge_json(1.0, True)])
    assert isinstance(slow_judge, PausingJudge)
    outcome = run_goal(conversation, "Do it", slow_judge.pausing(conversation))
    assert (outcome.status, outcome.reason) == ("interrupted", "conversation paused")
    assert len(user_texts(list(conversation.state.events))) == 1
    assert goal_chips(list(conversation.state.events))[-1]["status"] == "interrupted"


def test_invalid_arguments_raise_before_anything_is_sent(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([])
    with pytest.raises(ValueError, match="max_iterations"):
        run_goal(conversation, "Do it", judge(), max_iterations=0)
    assert user_texts(list(conversation.state.events)) == []
    assert goal_chips(list(conversation.state.events)) == []


class InterruptingJudge(TestLLM):
    """A judge whose call is interrupted by Ctrl-C."""

    def _complete(self, messages: list[Message], tools: Any, stream: bool) -> LLMResponse:
        raise KeyboardInterrupt


def test_a_crashing_driver_records_an_interrupted_chip_and_reraises(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish()])
    with pytest.raises(KeyboardInterrupt):
        run_goal(conversation, "Do it", InterruptingJudge())
    last = goal_chips(list(conversation.state.events))[-1]
    assert (last["status"], last["active"]) == ("interrupted", False)


def test_resume_continues_an_interrupted_goal_where_it_stopped(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish("round 1"), LLMTransientError("flaky")])
    first = run_goal(conversation, "Do it", judge(judge_json(0.5, False, ["tests"])))
    assert first.status == "interrupted"
    agent_llm = conversation.agent.llm
    assert isinstance(agent_llm, TestLLM)
    agent_llm.add_messages(finish("round 2"))
    outcome = resume_goal(conversation, judge(judge_json(1.0, True)))
    assert outcome.status == "complete"
    assert outcome.iterations == 2
    resume_message = user_texts(list(conversation.state.events))[-1]
    assert "Resume the goal" in resume_message and "Do it" in resume_message


def test_a_finished_goal_cannot_be_resumed(goal_conversation: GoalConversation) -> None:
    conversation = goal_conversation([finish()])
    run_goal(conversation, "Do it", judge(judge_json(1.0, True)))
    with pytest.raises(ValueError, match="only an interrupted goal"):
        resume_goal(conversation, judge())


def test_a_conversation_without_a_goal_cannot_be_resumed(
    goal_conversation: GoalConversation,
) -> None:
    with pytest.raises(ValueError, match="no goal"):
        resume_goal(goal_conversation([]), judge())


def test_the_goal_status_survives_reopening_a_persisted_conversation(
    goal_conversation: GoalConversation, workspace_dir: Path, persistence_dir: Path
) -> None:
    conversation = goal_conversation([finish()], persist=True)
    run_goal(conversation, "Do it", judge(judge_json(1.0, True)))
    conversation.close()
    reopened = LocalConversation(
        Agent(llm=TestLLM.from_messages([]), tools=[]),
        workspace=str(workspace_dir),
        persistence_dir=str(persistence_dir),
        conversation_id=conversation.id,
    )
    try:
        status = last_goal_status(reopened.state.events)
    finally:
        reopened.close()
    assert status is not None
    assert (status.status, status.iteration, status.objective) == ("complete", 1, "Do it")


def test_a_negative_budget_is_refused_before_anything_is_sent(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([])
    with pytest.raises(InvalidGoalError, match="max_cost"):
        run_goal(conversation, "Do it", judge(), max_cost=-1)
    assert user_texts(list(conversation.state.events)) == []


def test_resume_without_a_goal_raises_no_resumable_goal(
    goal_conversation: GoalConversation,
) -> None:
    with pytest.raises(NoResumableGoalError) as caught:
        resume_goal(goal_conversation([]), judge())
    assert caught.value.code == "no_resumable_goal"


def test_a_resumed_goal_refers_to_the_objective_written_at_the_start(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish("round 1"), LLMTransientError("flaky")])
    run_goal(conversation, "Do it", judge(judge_json(0.5, False, ["tests"])))
    agent_llm = conversation.agent.llm
    assert isinstance(agent_llm, TestLLM)
    agent_llm.add_messages(finish("round 2"))
    resume_goal(conversation, judge(judge_json(1.0, True)))
    values = goal_chips(list(conversation.state.events))
    assert sum("objective" in value for value in values) == 1
    status = last_goal_status(conversation.state.events)
    assert status is not None and (status.status, status.objective) == ("complete", "Do it")


class ForwardingConversation:
    """A conversation that can be driven but not observed (like a remote one)."""

    def __init__(self, inner: LocalConversation) -> None:
        self._inner = inner

    @property
    def state(self) -> ConversationStateView:
        return self._inner.state

    @property
    def agent(self) -> AgentBase:
        return self._inner.agent

    @property
    def workspace(self) -> LocalWorkspace:
        return self._inner.workspace

    def send_message(self, message: str | Message) -> None:
        self._inner.send_message(message)

    def run(self) -> None:
        self._inner.run()

    def pause(self) -> None:
        self._inner.pause()


def test_a_conversation_that_cannot_be_observed_is_still_driven_with_live_progress(
    goal_conversation: GoalConversation,
) -> None:
    inner = goal_conversation([finish(), finish()])
    seen: list[GoalStatus] = []
    outcome = run_goal(
        ForwardingConversation(inner),
        "Do it",
        judge(judge_json(0.4), judge_json(1.0, True)),
        on_status=seen.append,
    )
    assert (outcome.status, outcome.iterations) == ("complete", 2)
    assert goal_chips(list(inner.state.events)) == []  # it takes no outside events
    assert [s.phase for s in seen] == ["agent", "judging", "agent", "judging", None]


def test_a_hook_refusing_the_goals_message_ends_it_blocked(
    goal_conversation: GoalConversation, tmp_path: Any
) -> None:
    script = tmp_path / "refuse.sh"
    script.write_text("#!/bin/sh\necho 'no goals today' >&2\nexit 2\n")
    script.chmod(0o755)
    hooks = HookConfig.model_validate(
        {"user_prompt_submit": [{"matcher": "*", "hooks": [{"command": str(script)}]}]}
    )
    conversation = goal_conversation([finish()], hook_config=hooks)
    outcome = run_goal(conversation, "Do it", judge(judge_json(1.0, True)))
    assert (outcome.status, outcome.reason) == ("interrupted", "message blocked by a hook")
    assert "no goals today" in (outcome.error or "")


class InterjectedAgent(TestLLM):
    """An agent LLM during whose second call a person sends a message from another thread."""

    _conversation: Any = PrivateAttr(default=None)
    _answered: int = PrivateAttr(default=0)

    def watching(self, conversation: LocalConversation) -> InterjectedAgent:
        """Send the message to `conversation`."""
        self._conversation = conversation
        return self

    def _complete(self, messages: list[Message], tools: Any, stream: bool) -> LLMResponse:
        self._answered += 1
        if self._answered == 2:
            person = threading.Thread(target=self._conversation.send_message, args=("stop that",))
            person.start()
            person.join()
        return super()._complete(messages, tools, stream)


def test_a_user_message_from_elsewhere_during_a_round_interrupts_the_goal(
    workspace_dir: Path,
) -> None:
    agent_llm = InterjectedAgent.from_messages(
        [think("working"), finish("before"), finish("answered")]
    )
    assert isinstance(agent_llm, InterjectedAgent)
    conversation = LocalConversation(Agent(llm=agent_llm), workspace=str(workspace_dir))
    agent_llm.watching(conversation)
    try:
        outcome = run_goal(conversation, "Do it", judge(judge_json(1.0, True)))
    finally:
        conversation.close()
    assert (outcome.status, outcome.reason) == ("interrupted", "user message")
    assert user_texts(list(conversation.state.events)) == ["Do it", "stop that"]


def test_resuming_a_goal_its_killed_driver_left_running_records_the_restart_first(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish("round 1")])
    left = GoalStatus(active=True, status="running", iteration=0, objective="Do it", phase="agent")
    conversation.append_event(
        ConversationStateUpdateEvent(key="goal", value=left.model_dump(mode="json"))
    )
    outcome = resume_goal(conversation, judge(judge_json(1.0, True)))
    assert outcome.status == "complete"
    chips = goal_chips(list(conversation.state.events))
    assert [(c["status"], c["reason"]) for c in chips[1:2]] == [("interrupted", "server restart")]


def test_a_stop_request_from_another_thread_ends_the_goal_stopped_by_user(
    workspace_dir: Path,
) -> None:
    stop = GoalStop()
    agent_llm = StoppingAgent.from_messages([think("working"), finish("more"), finish("x")])
    assert isinstance(agent_llm, StoppingAgent)
    conversation = LocalConversation(Agent(llm=agent_llm), workspace=str(workspace_dir))
    agent_llm.stopping(stop)
    try:
        outcome = run_goal(conversation, "Do it", judge(judge_json(1.0, True)), stop=stop)
    finally:
        conversation.close()
    assert (outcome.status, outcome.reason, outcome.iterations) == (
        "interrupted",
        "stopped by user",
        1,
    )
    chips = goal_chips(list(conversation.state.events))
    assert (chips[-1]["status"], chips[-1]["reason"]) == ("interrupted", "stopped by user")


class StoppingAgent(TestLLM):
    """An agent LLM during whose second call someone stops the goal."""

    _stop: Any = PrivateAttr(default=None)
    _answered: int = PrivateAttr(default=0)

    def stopping(self, stop: GoalStop) -> StoppingAgent:
        """Request `stop` on the second call."""
        self._stop = stop
        return self

    def _complete(self, messages: list[Message], tools: Any, stream: bool) -> LLMResponse:
        self._answered += 1
        if self._answered == 2:
            threading.Thread(target=self._stop.request).start()
        return super()._complete(messages, tools, stream)
