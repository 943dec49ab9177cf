"""Which tool calls wait for approval, and which ones are waiting.

The rule lives here and the agent and the conversation use it: after the LLM's reply is
recorded, its calls are rated by the conversation's security analyzer (UNKNOWN without one;
LOW for a read-only tool, one annotated `readOnlyHint`) and the confirmation policy decides; if
any call needs approval, none of the reply's calls runs until `run()` approves them or
`reject_pending_actions(reason)` rejects them. `finish` and `think` never ask (they change
nothing), and a call a standing approval (`AllowRule`) matches does not ask unless it was
rated HIGH.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from openhands.sdk.contracts import EventHistory
from openhands.sdk.event.action import (
    ActionEvent,
    AgentErrorEvent,
    ObservationEvent,
    UserRejectObservation,
)
from openhands.sdk.event.base import Event
from openhands.sdk.security.analyzer import SecurityAnalyzerBase
from openhands.sdk.security.approval_rules import (
    NEVER_ASK,
    AllowRule,
    allowed_by,
    call_arguments,
)
from openhands.sdk.security.confirmation_policy import ConfirmationPolicyBase
from openhands.sdk.security.risk import SecurityRisk

PENDING_SEARCH = 500
"""How many of the newest events are searched for the calls that wait (a reply's calls and
their results are always among the newest)."""

_RESULTS = (ObservationEvent, AgentErrorEvent, UserRejectObservation)


def unmatched_actions(events: EventHistory | Sequence[Event]) -> list[ActionEvent]:
    """The calls of the newest LLM reply that have no result yet (no observation, error or
    rejection), in call order. `events` is a list of events or a conversation's history."""
    total = len(events)
    start = max(0, total - PENDING_SEARCH)
    # A history reads only the newest events from its files; a list is sliced.
    if isinstance(events, EventHistory):
        window = events.read(start, total)
    else:
        window = list(events[start:total])
    waiting: dict[str, ActionEvent] = {}  # by event id, in call order
    newest_reply: str | None = None
    for event in window:
        if isinstance(event, ActionEvent):
            waiting[event.id] = event
            newest_reply = event.llm_response_id
        elif isinstance(event, _RESULTS):
            # A result names its call by event id when it can; an error only by the LLM's
            # call id, which a provider may reuse: it answers the newest such call.
            action_id = event.action_id if not isinstance(event, AgentErrorEvent) else None
            if action_id in waiting:
                del waiting[action_id]
                continue
            for key in reversed(list(waiting)):
                if waiting[key].tool_call_id == event.tool_call_id:
                    del waiting[key]
                    break
    return [action for action in waiting.values() if action.llm_response_id == newest_reply]


def rate(
    analyzer: SecurityAnalyzerBase | None, actions: Sequence[ActionEvent]
) -> list[tuple[ActionEvent, SecurityRisk]]:
    """Each call with its risk (UNKNOWN for every call without an analyzer)."""
    if analyzer is None:
        return [(action, SecurityRisk.UNKNOWN) for action in actions]
    return analyzer.analyze_pending_actions(actions)


def needs_approval(
    policy: ConfirmationPolicyBase,
    analyzer: SecurityAnalyzerBase | None,
    actions: Sequence[ActionEvent],
    read_only: Collection[str] = (),
    rules: Sequence[AllowRule] = (),
) -> bool:
    """Whether any of `actions` must wait for approval under `policy` and the standing
    approvals `rules`.

    A call of a tool named in `read_only` (its `readOnlyHint`: it changes nothing) is rated
    LOW whatever the analyzer says, so only a policy that confirms everything stops it.
    """
    asking = [action for action in actions if action.tool_name not in NEVER_ASK]
    if not asking:
        return False
    others = [action for action in asking if action.tool_name not in read_only]
    rated = rate(analyzer, others) if others else []
    rated += [(action, SecurityRisk.LOW) for action in asking if action.tool_name in read_only]
    for action, risk in rated:
        if not policy.should_confirm(risk):
            continue
        if risk is not SecurityRisk.HIGH and allowed_by(
            rules, action.tool_name, call_arguments(action)
        ):
            continue
        return True
    return False
