"""`Approvals` alone, behind a `ConversationCore`: its own flag (the approval) and the tool
schemas that follow the security analyzer."""

from __future__ import annotations

from typing import Any

from core_for_tests import CoreForTests, MakeCore
from openhands.sdk.conversation.approvals import Approvals
from openhands.sdk.conversation.state import ConversationExecutionStatus as Status
from openhands.sdk.event.action import ActionEvent, UserRejectObservation
from openhands.sdk.llm.message import MessageToolCall
from openhands.sdk.security import AlwaysConfirm, LLMSecurityAnalyzer


def _waiting_call(core: CoreForTests) -> ActionEvent:
    """An `echo` call recorded without a result while the conversation waits for approval."""
    call = MessageToolCall(id="call_1", name="echo", arguments='{"text": "hi"}')
    event = ActionEvent(tool_name="echo", tool_call_id=call.id, tool_call=call)
    core.emit(event)
    core.set_status(Status.WAITING_FOR_CONFIRMATION)
    return event


def test_approving_when_nothing_waits_changes_nothing(make_core: MakeCore) -> None:
    core = make_core(tools=["echo"])
    approvals = Approvals(core)

    approvals.approve()

    assert approvals.take_approved() == []
    assert core.state.execution_status == Status.IDLE


def test_approved_calls_are_handed_to_the_next_step_once(make_core: MakeCore) -> None:
    core = make_core(tools=["echo"])
    approvals = Approvals(core)
    waiting = _waiting_call(core)

    approvals.approve()

    assert core.state.execution_status == Status.IDLE
    assert [a.id for a in approvals.take_approved()] == [waiting.id]
    assert approvals.take_approved() == []


def test_a_rejection_answers_the_calls_and_withdraws_an_approval(make_core: MakeCore) -> None:
    core = make_core(tools=["echo"])
    approvals = Approvals(core)
    waiting = _waiting_call(core)
    approvals.approve_if_waiting()  # as a run starting on the waiting conversation does

    approvals.reject("not now")

    [rejection] = [e for e in core.state.events if isinstance(e, UserRejectObservation)]
    assert (rejection.action_id, rejection.rejection_reason) == (waiting.id, "not now")
    assert approvals.take_approved() == []
    assert core.state.execution_status == Status.IDLE


def test_settings_are_saved_with_the_conversation(make_core: MakeCore) -> None:
    core = make_core(tools=["echo"])
    approvals = Approvals(core)

    approvals.set_confirmation_policy(AlwaysConfirm())
    approvals.set_security_analyzer(None)

    assert isinstance(core.state.confirmation_policy, AlwaysConfirm)
    assert core.configs_saved == 2


def test_the_tool_schemas_ask_for_the_risk_only_while_an_llm_analyzer_is_set(
    make_core: MakeCore,
) -> None:
    core = make_core(tools=["echo"])
    approvals = Approvals(core)

    def echo_asks_risk() -> bool:
        schemas: list[Any] = approvals.tool_schemas
        [echo] = [s["function"] for s in schemas if s["function"]["name"] == "echo"]
        return "security_risk" in echo["parameters"]["properties"]

    assert not echo_asks_risk()
    approvals.set_security_analyzer(LLMSecurityAnalyzer())
    assert echo_asks_risk()
    approvals.set_security_analyzer(None)
    assert not echo_asks_risk()
