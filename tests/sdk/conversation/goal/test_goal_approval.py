"""A goal whose agent waits for approval: the status says so, nothing is judged meanwhile, and
the goal goes on once the call is approved or rejected."""

from __future__ import annotations

from goal_helpers import GoalConversation, finish, judge_json
from openhands.sdk.conversation.goal import GoalStatus, run_goal
from openhands.sdk.event.action import ObservationEvent, UserRejectObservation
from openhands.sdk.security import AlwaysConfirm
from openhands.sdk.testing import TestLLM


def test_a_goal_waits_for_approval_then_completes(goal_conversation: GoalConversation) -> None:
    conversation = goal_conversation([finish("done")])
    conversation.set_confirmation_policy(AlwaysConfirm())
    phases: list[str | None] = []

    def on_status(status: GoalStatus) -> None:
        phases.append(status.phase)
        if status.phase == "waiting_for_approval":
            conversation.approve_pending_actions()

    judge = TestLLM.from_messages([judge_json(1.0, True)], usage_id="judge")
    outcome = run_goal(conversation, "Finish", judge, on_status=on_status)

    assert outcome.status == "complete" and outcome.iterations == 1
    assert phases[:3] == ["agent", "waiting_for_approval", "agent"]
    assert "judging" in phases and phases.index("judging") > phases.index("waiting_for_approval")
    assert any(isinstance(e, ObservationEvent) for e in conversation.state.events)


def test_a_rejected_call_lets_the_agent_go_on_in_the_same_round(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish("rm everything"), finish("asked instead")])
    conversation.set_confirmation_policy(AlwaysConfirm())
    answers = [False, True]

    def on_status(status: GoalStatus) -> None:
        if status.phase == "waiting_for_approval":
            if answers.pop(0):
                conversation.approve_pending_actions()
            else:
                conversation.reject_pending_actions("not that one")

    judge = TestLLM.from_messages([judge_json(1.0, True)], usage_id="judge")
    outcome = run_goal(conversation, "Tidy up", judge, on_status=on_status)

    assert outcome.status == "complete" and outcome.iterations == 1
    [rejection] = [e for e in conversation.state.events if isinstance(e, UserRejectObservation)]
    assert rejection.rejection_reason == "not that one"
    assert answers == []


def test_a_pause_while_waiting_interrupts_the_goal(goal_conversation: GoalConversation) -> None:
    conversation = goal_conversation([finish("done")])
    conversation.set_confirmation_policy(AlwaysConfirm())

    def on_status(status: GoalStatus) -> None:
        if status.phase == "waiting_for_approval":
            conversation.pause()

    judge = TestLLM.from_messages([], usage_id="judge")
    outcome = run_goal(conversation, "Finish", judge, on_status=on_status)

    assert outcome.status == "interrupted"
    assert not any(isinstance(e, ObservationEvent) for e in conversation.state.events)


def test_a_goal_started_on_a_waiting_conversation_waits_for_that_approval_first(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish("first call"), finish("after the goal's message")])
    conversation.set_confirmation_policy(AlwaysConfirm())
    conversation.send_message("start")
    conversation.run()
    assert conversation.state.execution_status.value == "waiting_for_confirmation"
    seen: list[tuple[str | None, int]] = []

    def on_status(status: GoalStatus) -> None:
        ran = sum(isinstance(e, ObservationEvent) for e in conversation.state.events)
        seen.append((status.phase, ran))
        if status.phase == "waiting_for_approval":
            conversation.approve_pending_actions()

    judge = TestLLM.from_messages([judge_json(1.0, True)], usage_id="judge")
    outcome = run_goal(conversation, "Finish", judge, on_status=on_status)

    assert outcome.status == "complete"
    # The first status already waits, and nothing ran before the approval.
    assert seen[0] == ("waiting_for_approval", 0)
    assert seen[1][0] == "agent"
