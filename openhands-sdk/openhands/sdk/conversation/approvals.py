"""Human approval on a `LocalConversation`: the policy, the analyzer, approve and reject.

A mixin so the conversation module keeps to the run loop; the rule of which calls wait is in
`conversation.confirmation`. While a run waits, the conversation's status is
`waiting_for_confirmation` (recorded like any status, so it survives a restart) and the calls
that wait are the newest reply's calls without a result (`pending_actions`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from openhands.sdk.conversation.confirmation import needs_approval, rate, unmatched_actions
from openhands.sdk.conversation.state import ConversationExecutionStatus as Status
from openhands.sdk.errors import InvalidArgumentTypeError
from openhands.sdk.event.action import ActionEvent, UserRejectObservation
from openhands.sdk.security.analyzer import SecurityAnalyzerBase
from openhands.sdk.security.approval_rules import AllowRule, merged, unique_rules
from openhands.sdk.security.confirmation_policy import ConfirmationPolicyBase
from openhands.sdk.security.ensemble import uses_llm_risk
from openhands.sdk.security.risk import SecurityRisk

if TYPE_CHECKING:
    from openhands.sdk.conversation.state import ConversationState
    from openhands.sdk.event.base import Event
    from openhands.sdk.tool.tool import ToolDefinition

DEFAULT_REJECTION_REASON = "The user rejected this action."


class Approvals:
    """The approval part of `LocalConversation` (see the module docstring)."""

    # Provided by LocalConversation.
    _state: ConversationState
    _lock: threading.RLock
    tools: dict[str, ToolDefinition]
    tool_schemas: list[dict[str, object]]

    def _emit(self, event: Event) -> Event:
        raise NotImplementedError

    def _set_status(self, status: Status, *, best_effort: bool = False) -> None:
        raise NotImplementedError

    def _save_config(self) -> None:
        raise NotImplementedError

    _approved: bool = False
    _awaiting_approval: bool = False

    # -- public API ---------------------------------------------------------------------------

    def set_confirmation_policy(self, policy: ConfirmationPolicyBase) -> None:
        """Choose which tool calls wait for approval (`AlwaysConfirm()`, `NeverConfirm()`,
        `ConfirmRisky(threshold)`); saved with the conversation."""
        if not isinstance(policy, ConfirmationPolicyBase):
            raise InvalidArgumentTypeError(
                f"expected a confirmation policy such as AlwaysConfirm(), not {policy!r}"
            )
        with self._lock:
            self._state.confirmation_policy = policy  # type: ignore[assignment]
            self._save_config()

    def set_security_analyzer(self, analyzer: SecurityAnalyzerBase | None) -> None:
        """Choose what rates each call's risk for the policy (None: every call UNKNOWN).

        With an `LLMSecurityAnalyzer`, the tools ask the LLM for a `security_risk` from the
        next step on.
        """
        if analyzer is not None and not isinstance(analyzer, SecurityAnalyzerBase):
            raise InvalidArgumentTypeError(
                f"expected a security analyzer such as LLMSecurityAnalyzer(), not {analyzer!r}"
            )
        with self._lock:
            self._state.security_analyzer = analyzer  # type: ignore[assignment]
            self.tool_schemas = self._tool_schemas()
            self._save_config()

    @property
    def approval_rules(self) -> list[AllowRule]:
        """The standing approvals of this conversation (see `add_approval_rule`)."""
        return list(self._state.approval_rules)

    def add_approval_rule(self, rule: AllowRule) -> None:
        """Let calls `rule` matches run without asking from now on ("always allow this
        tool / command prefix"), unless one is rated HIGH risk; saved with the conversation.
        Calls waiting now are not approved by it: approve them too."""
        if not isinstance(rule, AllowRule):
            raise InvalidArgumentTypeError(f"expected an AllowRule, not {rule!r}")
        with self._lock:
            self._state.approval_rules = merged(self._state.approval_rules, rule)
            self._save_config()

    def set_approval_rules(self, rules: Iterable[AllowRule]) -> None:
        """Replace the standing approvals with `rules` (each kept once, in order), saved once:
        linear in their number. Calls waiting now are not approved by them."""
        checked = unique_rules(rules)
        with self._lock:
            self._state.approval_rules = checked
            self._save_config()

    def remove_approval_rule(self, rule: AllowRule) -> None:
        """Ask again for the calls `rule` matched (no-op for a rule that is not there)."""
        with self._lock:
            self._state.approval_rules = [r for r in self._state.approval_rules if r != rule]
            self._save_config()

    def approve_pending_actions(self) -> None:
        """Approve the waiting calls without running them now: the next `run()` runs them
        first. (`run()` on a waiting conversation approves too.) No-op when nothing waits."""
        with self._lock:
            if self._state.execution_status != Status.WAITING_FOR_CONFIRMATION:
                return
            self._approved = True
            self._set_status(Status.IDLE)

    def reject_pending_actions(self, reason: str = DEFAULT_REJECTION_REASON) -> None:
        """Reject the waiting calls: each gets a `UserRejectObservation` with `reason`, which
        the agent reads on its next step (`run()` again to let it go on)."""
        with self._lock:
            waiting = self._state.execution_status == Status.WAITING_FOR_CONFIRMATION
            for action in unmatched_actions(self._state.events) if waiting else []:
                self._emit(
                    UserRejectObservation(
                        tool_name=action.tool_name,
                        tool_call_id=action.tool_call_id,
                        action_id=action.id,
                        rejection_reason=reason or DEFAULT_REJECTION_REASON,
                    )
                )
            self._approved = False
            if waiting:
                self._set_status(Status.IDLE)

    # -- used by the run and the agent -------------------------------------------------------

    def _approve_if_waiting(self) -> None:
        """`run()` on a waiting conversation approves its calls (the caller holds the lock)."""
        if self._state.execution_status == Status.WAITING_FOR_CONFIRMATION:
            self._approved = True

    def take_approved_actions(self) -> list[ActionEvent]:
        """The approved calls to run now (once), or []."""
        if not self._approved:
            return []
        self._approved = False
        return unmatched_actions(self._state.events)

    def needs_approval(self, actions: list[ActionEvent]) -> bool:
        """Whether this reply's `actions` must wait for approval."""
        state = self._state
        read_only = [
            name
            for name, tool in self.tools.items()
            if tool.annotations is not None and tool.annotations.readOnlyHint
        ]
        return needs_approval(
            state.confirmation_policy,
            state.security_analyzer,
            actions,
            read_only,
            state.approval_rules,
        )

    def wait_for_approval(self) -> None:
        """End the run after this step in `waiting_for_confirmation`."""
        self._awaiting_approval = True

    def rated(self, action: ActionEvent) -> ActionEvent:
        """`action` with the analyzer's rating (an LLM analyzer keeps what the LLM said)."""
        analyzer = self._state.security_analyzer
        if analyzer is None or uses_llm_risk(analyzer):
            return action
        [(_, risk)] = rate(analyzer, [action])
        if risk is SecurityRisk.UNKNOWN:
            return action
        return action.model_copy(update={"security_risk": risk.value})

    def _tool_schemas(self) -> list[dict[str, object]]:
        ask_risk = uses_llm_risk(self._state.security_analyzer)
        return [
            tool.to_openai_tool(add_security_risk_prediction=ask_risk)
            for tool in self.tools.values()
        ]
