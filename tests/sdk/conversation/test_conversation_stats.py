"""ConversationStats: the usage of every LLM a conversation used, persisted and restored."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk import Agent, ConversationStateUpdateEvent, LocalConversation
from openhands.sdk.conversation import ConversationStats
from openhands.sdk.conversation.conversation_stats import UnknownUsageIdError
from openhands.sdk.testing import TestLLM


@pytest.fixture
def scripted(workspace_dir: Path, persistence_dir: Path, reply):
    """`scripted(costs, conversation_id=None)`: a persisted conversation whose agent
    (usage_id "agent") thinks once per cost and then finishes for free."""
    opened: list[LocalConversation] = []

    def build(costs=(), conversation_id=None, agent_llm=None):
        replies = [reply.think(f"t{i}") for i in range(len(costs))] + [reply.finish()]
        llm = agent_llm or TestLLM.from_messages(replies, usage_id="agent", costs=[*costs, 0.0])
        conversation = LocalConversation(
            Agent(llm=llm),
            workspace_dir,
            persistence_dir=persistence_dir,
            conversation_id=conversation_id,
        )
        opened.append(conversation)
        return conversation, llm

    yield build
    for conversation in opened:
        conversation.close()


def _stats_updates(conversation: LocalConversation) -> list[ConversationStateUpdateEvent]:
    return [
        event
        for event in conversation.state.events
        if isinstance(event, ConversationStateUpdateEvent) and event.key == "stats"
    ]


def test_the_agents_llm_is_counted_under_its_usage_id(scripted) -> None:
    conversation, _ = scripted([0.25, 0.5])
    conversation.send_message("go")
    conversation.run()

    stats = conversation.conversation_stats

    assert isinstance(stats, ConversationStats)
    assert stats.get_metrics_for_usage("agent").accumulated_cost == 0.75
    assert stats.get_metrics_for_usage("agent").completions == 3


def test_a_registered_judge_is_counted_and_combined(scripted) -> None:
    conversation, _ = scripted([0.5])
    judge = TestLLM.from_messages([], usage_id="goal-judge")
    conversation.conversation_stats.register_llm(judge)
    conversation.send_message("go")
    conversation.run()

    judge.metrics.add(cost=0.125, prompt_tokens=10, completion_tokens=2)
    combined = conversation.conversation_stats.get_combined_metrics()

    assert combined.accumulated_cost == 0.625
    assert combined.completions == 3
    assert combined.prompt_tokens >= 10
    assert conversation.state.metrics["goal-judge"] is judge.metrics


def test_an_unknown_usage_id_is_a_lookup_error_naming_the_known_ones(scripted) -> None:
    conversation, _ = scripted()

    with pytest.raises(UnknownUsageIdError, match="known: agent") as caught:
        conversation.conversation_stats.get_metrics_for_usage("nope")

    assert isinstance(caught.value, LookupError)


def test_usage_of_every_llm_survives_a_close_and_reopen(scripted) -> None:
    conversation, _ = scripted([0.5])
    judge = TestLLM.from_messages([], usage_id="goal-judge")
    conversation.conversation_stats.register_llm(judge)
    conversation.send_message("go")
    conversation.run()
    judge.metrics.add(cost=0.25, prompt_tokens=3, completion_tokens=1)
    conversation.close()

    fresh_agent = TestLLM.from_messages([], usage_id="agent")
    reopened, _ = scripted(conversation_id=conversation.id, agent_llm=fresh_agent)
    fresh_judge = TestLLM.from_messages([], usage_id="goal-judge")
    reopened.conversation_stats.register_llm(fresh_judge)

    assert fresh_agent.metrics.accumulated_cost == 0.5
    assert fresh_judge.metrics.accumulated_cost == 0.25
    assert reopened.conversation_stats.get_combined_metrics().accumulated_cost == 0.75


def test_usage_survives_a_crash_after_the_run(scripted, crash_copy) -> None:
    conversation, _ = scripted([0.5, 0.25])
    conversation.send_message("go")
    conversation.run()
    crashed = crash_copy(conversation)  # never closed: no snapshot was written

    fresh = TestLLM.from_messages([], usage_id="agent")
    reopened = LocalConversation(
        Agent(llm=fresh), persistence_dir=crashed, conversation_id=conversation.id
    )
    reopened.close()

    assert fresh.metrics.accumulated_cost == 0.75
    assert fresh.metrics.completions == 3


def test_a_run_records_its_usage_once_at_its_end(scripted) -> None:
    conversation, _ = scripted([0.5])
    conversation.send_message("go")
    conversation.run()

    updates = _stats_updates(conversation)

    assert len(updates) == 1
    assert updates[0].value["usage_to_metrics"]["agent"]["accumulated_cost"] == 0.5
    assert conversation.state.events[-1].kind == "ConversationStateUpdateEvent"
    conversation.pause()  # no LLM call since: nothing new to record
    assert len(_stats_updates(conversation)) == 1
