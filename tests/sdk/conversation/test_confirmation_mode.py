"""Human approval in a LocalConversation: a call that needs approval waits; run() approves,
reject_pending_actions(reason) rejects; the wait survives a reopen."""

from __future__ import annotations

from pathlib import Path

from openhands.sdk import Agent, LocalConversation, Tool
from openhands.sdk.conversation.state import ConversationExecutionStatus, ConversationState
from openhands.sdk.event.action import ObservationEvent, UserRejectObservation
from openhands.sdk.security import (
    AlwaysConfirm,
    ConfirmRisky,
    LLMSecurityAnalyzer,
    PatternSecurityAnalyzer,
    SecurityRisk,
)
from openhands.sdk.testing import TestLLM

WAITING = ConversationExecutionStatus.WAITING_FOR_CONFIRMATION


def _echo_results(conversation: LocalConversation) -> list[str]:
    return [
        e.observation.text for e in conversation.state.events if isinstance(e, ObservationEvent)
    ]


def test_a_call_waits_for_approval_and_run_approves_it(make_conversation, reply) -> None:
    conversation, llm = make_conversation(
        [reply.call("echo", {"text": "hi"}), reply.text("done")], tools=["echo"]
    )
    conversation.set_confirmation_policy(AlwaysConfirm())

    conversation.send_message("say hi")
    conversation.run()

    assert conversation.state.execution_status == WAITING
    [pending] = ConversationState.get_unmatched_actions(conversation.state.events)
    assert pending.tool_name == "echo" and conversation.pending_actions == [pending]
    assert _echo_results(conversation) == []

    conversation.run()

    assert _echo_results(conversation) == ["hi"]
    assert conversation.state.execution_status == ConversationExecutionStatus.FINISHED
    assert len(llm.calls) == 2  # the approval ran the waiting call without asking the LLM again


def test_a_rejected_call_never_runs_and_the_agent_reads_why(make_conversation, reply) -> None:
    conversation, llm = make_conversation(
        [reply.call("echo", {"text": "rm"}), reply.text("understood")], tools=["echo"]
    )
    conversation.set_confirmation_policy(AlwaysConfirm())
    conversation.send_message("go")
    conversation.run()

    conversation.reject_pending_actions("not on my machine")

    [rejection] = [e for e in conversation.state.events if isinstance(e, UserRejectObservation)]
    assert rejection.rejection_reason == "not on my machine"
    assert conversation.state.execution_status == ConversationExecutionStatus.IDLE
    assert conversation.pending_actions == []
    conversation.run()
    assert _echo_results(conversation) == []
    tool_answer = [m for m in llm.calls[1] if m.role == "tool"]
    assert "not on my machine" in tool_answer[0].text


def test_confirm_risky_lets_low_risk_calls_run_and_stops_high_ones(
    make_conversation, reply
) -> None:
    conversation, _ = make_conversation(
        [
            reply.call("echo", {"text": "safe", "security_risk": "LOW"}),
            reply.call("echo", {"text": "risky", "security_risk": "HIGH"}),
            reply.text("done"),
        ],
        tools=["echo"],
    )
    conversation.set_security_analyzer(LLMSecurityAnalyzer())
    conversation.set_confirmation_policy(ConfirmRisky(threshold=SecurityRisk.HIGH))

    conversation.send_message("go")
    conversation.run()

    assert _echo_results(conversation) == ["safe"]
    assert conversation.state.execution_status == WAITING
    [pending] = conversation.pending_actions
    assert pending.security_risk == "HIGH"


def test_an_llm_analyzer_makes_the_tools_ask_for_a_risk(make_conversation) -> None:
    conversation, _ = make_conversation([], tools=["echo"])
    echo = next(t for t in conversation.tool_schemas if t["function"]["name"] == "echo")
    assert "security_risk" not in echo["function"]["parameters"]["properties"]

    conversation.set_security_analyzer(LLMSecurityAnalyzer())

    echo = next(t for t in conversation.tool_schemas if t["function"]["name"] == "echo")
    assert echo["function"]["parameters"]["properties"]["security_risk"]["enum"] == [
        "LOW",
        "MEDIUM",
        "HIGH",
    ]


def test_a_rule_based_analyzer_rates_the_recorded_call(make_conversation, reply) -> None:
    conversation, _ = make_conversation(
        [reply.call("echo", {"text": "sudo reboot"})], tools=["echo"]
    )
    conversation.set_security_analyzer(PatternSecurityAnalyzer())
    conversation.set_confirmation_policy(ConfirmRisky(threshold=SecurityRisk.HIGH))
    conversation.send_message("go")
    conversation.run()

    [pending] = conversation.pending_actions
    assert pending.security_risk == "HIGH"


def test_a_waiting_conversation_still_waits_after_a_reopen(
    workspace_dir: Path, persistence_dir: Path, reply
) -> None:
    llm = TestLLM.from_messages([reply.call("echo", {"text": "later"})])
    agent = Agent(llm=llm, tools=[Tool(name="echo")])
    first = LocalConversation(agent, workspace_dir, persistence_dir=persistence_dir)
    first.set_confirmation_policy(AlwaysConfirm())
    first.send_message("go")
    first.run()
    cid = first.id
    first.close()

    again = LocalConversation(
        Agent(llm=TestLLM.from_messages([reply.text("done")]), tools=[Tool(name="echo")]),
        workspace_dir,
        persistence_dir=persistence_dir,
        conversation_id=cid,
    )
    try:
        assert again.state.execution_status == WAITING
        assert isinstance(again.state.confirmation_policy, AlwaysConfirm)
        [pending] = again.pending_actions
        again.run()
        assert _echo_results(again) == ["later"]
        assert pending.tool_call_id in {
            e.tool_call_id for e in again.state.events if isinstance(e, ObservationEvent)
        }
    finally:
        again.close()


def test_without_a_policy_calls_run_at_once(make_conversation, reply) -> None:
    conversation, _ = make_conversation(
        [reply.call("echo", {"text": "now"}), reply.text("done")], tools=["echo"]
    )
    conversation.send_message("go")
    conversation.run()
    assert _echo_results(conversation) == ["now"]
