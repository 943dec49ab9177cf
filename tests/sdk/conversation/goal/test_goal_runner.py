"""run_goal on a real LocalConversation: turns, chip events, failures, resume, persistence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from goal_helpers import GoalConversation, finish, goal_chips, judge_json, think, user_texts
from openhands.sdk import ActionEvent, Agent, Event, LocalConversation, Message
from openhands.sdk.conversation.goal import last_goal_status, resume_goal, run_goal
from openhands.sdk.llm import LLMResponse, LLMTransientError
from openhands.sdk.testing import TestLLM


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
    assert [a.action for a in actions] == [{"message": "one"}, {"message": "two"}]


def test_chip_events_mark_start_each_round_and_the_end(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish(), finish()])
    run_goal(conversation, "Do it", judge(judge_json(0.4, False, ["x"]), judge_json(1.0, True)))
    chips = goal_chips(list(conversation.state.events))
    assert [(c["status"], c["active"], c["iteration"]) for c in chips] == [
        ("running", True, 0),
        ("running", True, 1),
        ("complete", False, 2),
    ]
    assert chips[1]["verdict"]["missing"] == ["x"]
    assert chips[2]["verdict"]["complete"] is True


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


def test_a_user_pause_interrupts_the_goal(goal_conversation: GoalConversation) -> None:
    conversation = goal_conversation([think("a"), think("b"), finish()])

    def pause_on_first_action(event: Event) -> None:
        if isinstance(event, ActionEvent):
            conversation.pause()

    conversation.add_callback(pause_on_first_action)
    outcome = run_goal(conversation, "Do it", judge(judge_json(1.0, True)))
    assert outcome.status == "interrupted"
    assert outcome.reason == "paused"


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
