"""The goal loop's own messages (objective, follow-ups) carry `sender="goal"`, so a UI can tell
them from the person's; the person's messages carry none."""

from __future__ import annotations

from goal_helpers import GoalConversation, judge_json, text
from openhands.sdk.conversation.goal import GOAL_SENDER, run_goal
from openhands.sdk.event import MessageEvent
from openhands.sdk.testing import TestLLM


def test_the_objective_and_the_followups_are_the_goal_loops(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([text("tried"), text("done")])
    conversation.send_message("a word from the person first")
    judge = TestLLM.from_messages(
        [judge_json(0.5, False, "more"), judge_json(1.0, True)], usage_id="judge"
    )

    run_goal(conversation, "Say done", judge, max_iterations=3)

    senders = [
        (event.sender, event.llm_message.text[:20])
        for event in conversation.state.events
        if isinstance(event, MessageEvent) and event.source == "user"
    ]
    assert [sender for sender, _ in senders] == [None, GOAL_SENDER, GOAL_SENDER]
    assert senders[1][1] == "Say done"
