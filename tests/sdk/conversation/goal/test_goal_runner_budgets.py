"""run_goal budgets: cost and time limits end the goal capped, even in the middle of a run."""

from __future__ import annotations

import time
from typing import Any

import pytest
from goal_helpers import GoalConversation, finish, goal_chips, judge_json, think
from openhands.sdk import Agent, ConversationStateUpdateEvent, LocalConversation, Message
from openhands.sdk.conversation.goal import GoalLimits, GoalStatus, resume_goal, run_goal
from openhands.sdk.llm import LLMResponse
from openhands.sdk.testing import TestLLM


class SlowLLM(TestLLM):
    """A scripted agent LLM that takes 50 ms per reply."""

    def _complete(self, messages: list[Message], tools: Any, stream: bool) -> LLMResponse:
        time.sleep(0.05)
        return super()._complete(messages, tools, stream)


def thinking(steps: int) -> list[Message]:
    return [think(f"step {i}", call_id=f"think_{i}") for i in range(steps)] + [finish()]


def test_the_cost_budget_stops_the_agent_mid_run_and_caps_the_goal(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation(thinking(10), costs=[0.3] * 11)
    outcome = run_goal(
        conversation,
        "Do it",
        TestLLM.from_messages([judge_json(0.5)], usage_id="judge", costs=[0.01]),
        max_cost=1.0,
    )
    assert outcome.status == "capped"
    assert "cost budget" in (outcome.reason or "")
    assert outcome.agent_cost == pytest.approx(1.2)
    assert outcome.judge_cost == pytest.approx(0.01)
    agent_llm = conversation.agent.llm
    assert isinstance(agent_llm, TestLLM) and agent_llm.remaining > 0


def test_the_cost_budget_is_checked_between_rounds(goal_conversation: GoalConversation) -> None:
    conversation = goal_conversation([finish(), finish(), finish()], costs=[0.4, 0.4, 0.4])
    outcome = run_goal(
        conversation,
        "Do it",
        TestLLM.from_messages([judge_json(0.1)] * 3, usage_id="judge", costs=[0.1] * 3),
        max_cost=1.0,
    )
    assert outcome.status == "capped"
    assert outcome.iterations == 2
    assert outcome.cost == pytest.approx(1.0)


def test_the_time_limit_pauses_a_long_run_and_caps_the_goal(workspace_dir: Any) -> None:
    agent_llm = SlowLLM.from_messages(thinking(200), usage_id="agent")
    conversation = LocalConversation(Agent(llm=agent_llm, tools=[]), workspace=str(workspace_dir))
    try:
        outcome = run_goal(
            conversation,
            "Do it",
            TestLLM.from_messages([judge_json(0.5)], usage_id="judge"),
            time_limit=0.3,
        )
    finally:
        conversation.close()
    assert outcome.status == "capped"
    assert "time limit" in (outcome.reason or "")
    assert agent_llm.remaining > 0
    assert goal_chips(list(conversation.state.events))[-1]["status"] == "capped"


def test_a_complete_verdict_in_the_round_that_spent_the_budget_still_completes(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation([finish()], costs=[5.0])
    outcome = run_goal(
        conversation,
        "Do it",
        TestLLM.from_messages([judge_json(1.0, True)], usage_id="judge"),
        max_cost=1.0,
    )
    assert outcome.status == "complete"


def test_a_goal_resumed_with_no_time_left_runs_no_agent_step(
    goal_conversation: GoalConversation,
) -> None:
    conversation = goal_conversation(thinking(50))
    spent = GoalStatus(
        active=False,
        status="interrupted",
        iteration=1,
        limits=GoalLimits(max_iterations=5, time_limit=10),
        objective="Do it",
        elapsed=50,
    )
    conversation.append_event(
        ConversationStateUpdateEvent(key="goal", value=spent.model_dump(mode="json"))
    )
    outcome = resume_goal(conversation, TestLLM.from_messages([judge_json(0.5)]))
    assert outcome.status == "capped"
    assert "time limit" in (outcome.reason or "")
    agent_llm = conversation.agent.llm
    assert isinstance(agent_llm, TestLLM) and agent_llm.remaining == 51


class CallbackCountingConversation(LocalConversation):
    """A LocalConversation that counts the callbacks added to it and not removed since."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.active_callbacks = 0

    def add_callback(self, callback: Any) -> None:
        super().add_callback(callback)
        self.active_callbacks += 1

    def remove_callback(self, callback: Any) -> None:
        super().remove_callback(callback)
        self.active_callbacks -= 1


def test_a_goal_with_a_budget_leaves_no_callback_behind(workspace_dir: Any) -> None:
    agent = Agent(llm=TestLLM.from_messages([finish(), finish()], usage_id="agent"), tools=[])
    conversation = CallbackCountingConversation(agent, workspace=str(workspace_dir))
    judge = TestLLM.from_messages([judge_json(1.0, complete=True)] * 2, usage_id="judge")
    try:
        for _ in range(2):
            outcome = run_goal(conversation, "Do it", judge, max_cost=5.0, time_limit=60)
            assert outcome.status == "complete"
        assert conversation.active_callbacks == 0
    finally:
        conversation.close()
