"""`Approvals`: human approval on a `LocalConversation`: policy, analyzer, approve, reject.

A collaborator the conversation owns (see `conversation.core`); the rule of which calls wait
is in `conversation.confirmation`. While a run waits, the conversation's status is
`waiting_for_confirmation` (recorded like any status, so it survives a restart) and the calls
that wait are the newest reply's calls without a result (`pending_actions`). Whether calls
were approved is this object's own flag: set by `approve` (or by a run that starts on a
waiting conversation), spent by `take_approved` in the agent's next step. Ending the run
when a step's calls must wait is the run loop's business (`RunLoop.end_after_step`).
"""

from __future__ import annotations

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
    from openhands.sdk.conversation.core import ConversationCore

__all__ = ["DEFAULT_REJECTION_REASON", "Approvals"]

DEFAULT_REJECTION_REASON = "The user rejected this action."


class Approvals:
    """Which tool calls wait for a person, and the person's answer (see the module docstring)."""

    def __init__(self, core: ConversationCore) -> None:
        self._core = core
        self._approved = False  # the waiting calls were approved: the next step runs them
        self._schemas: dict[bool, list[dict[str, object]]] = {}  # by "asks for the risk"

    @property
    def tool_schemas(self) -> list[dict[str, object]]:
        """The tools as the LLM is shown them; while an LLM security analyzer is set, each
        asks for a `security_risk` (made once per kind, until `tools_changed`)."""
        ask_risk = uses_llm_risk(self._core.state.security_analyzer)
        schemas = self._schemas.get(ask_risk)
        if schemas is None:
            schemas = [
                tool.to_openai_tool(add_security_risk_prediction=ask_risk)
                for tool in self._core.tools.values()
            ]
            self._schemas[ask_risk] = schemas
        return schemas

    def tools_changed(self) -> None:
        """The conversation's tools changed (a plugin's MCP servers started): show the LLM
        the new ones."""
        self._schemas.clear()

    # -- settings (saved with the conversation) -------------------------------------------------

    def set_confirmation_policy(self, policy: ConfirmationPolicyBase) -> None:
        """Choose which tool calls wait for approval (`AlwaysConfirm()`, `NeverConfirm()`,
        `ConfirmRisky(threshold)`); saved with the conversation."""
        if not isinstance(policy, ConfirmationPolicyBase):
            raise InvalidArgumentTypeError(
                f"expected a confirmation policy such as AlwaysConfirm(), not {policy!r}"
            )
        state = self._core.state
        with state.lock:
            state.confirmation_policy = policy  # type: ignore[assignment]
            self._core.save_config()

    def set_security_analyzer(self, analyzer: SecurityAnalyzerBase | None) -> None:
        """Choose what rates each call's risk for the policy (None: every call UNKNOWN).

        With an `LLMSecurityAnalyzer`, the tools ask the LLM for a `security_risk` from the
        next step on (`tool_schemas` follow the analyzer).
        """
        if analyzer is not None and not isinstance(analyzer, SecurityAnalyzerBase):
            raise InvalidArgumentTypeError(
                f"expected a security analyzer such as LLMSecurityAnalyzer(), not {analyzer!r}"
            )
        state = self._core.state
        with state.lock:
            state.security_analyzer = analyzer  # type: ignore[assignment]
            self._core.save_config()

    @property
    def rules(self) -> list[AllowRule]:
        """The standing approvals of this conversation (a copy)."""
        return list(self._core.state.approval_rules)

    def add_rule(self, rule: AllowRule) -> None:
        """Let calls `rule` matches run without asking from now on ("always allow this
        tool / command prefix"), unless one is rated HIGH risk; saved with the conversation.
        Calls waiting now are not approved by it: approve them too."""
        if not isinstance(rule, AllowRule):
            raise InvalidArgumentTypeError(f"expected an AllowRule, not {rule!r}")
        state = self._core.state
        with state.lock:
            state.approval_rules = merged(state.approval_rules, rule)
            self._core.save_config()

    def set_rules(self, rules: Iterable[AllowRule]) -> None:
        """Replace the standing approvals with `rules` (each kept once, in order), saved once:
        linear in their number. Calls waiting now are not approved by them."""
        checked = unique_rules(rules)
        state = self._core.state
        with state.lock:
            state.approval_rules = checked
            self._core.save_config()

    def remove_rule(self, rule: AllowRule) -> None:
        """Ask again for the calls `rule` matched (no-op for a rule that is not there)."""
        state = self._core.state
        with state.lock:
            state.approval_rules = [r for r in state.approval_rules if r != rule]
            self._core.save_config()

    # -- the person's answer --------------------------------------------------------------------

    def approve(self) -> None:
        """Approve the waiting calls without running them now: the next `run()` runs them
        first. (`run()` on a waiting conversation approves too.) No-op when nothing waits."""
        state = self._core.state
        with state.lock:
            if state.execution_status != Status.WAITING_FOR_CONFIRMATION:
                return
            self._approved = True
            self._core.set_status(Status.IDLE)

    def reject(self, reason: str = DEFAULT_REJECTION_REASON) -> None:
        """Reject the waiting calls: each gets a `UserRejectObservation` with `reason`, which
        the agent reads on its next step (`run()` again to let it go on)."""
        state = self._core.state
        with state.lock:
            waiting = state.execution_status == Status.WAITING_FOR_CONFIRMATION
            for action in unmatched_actions(state.events) if waiting else []:
                self._core.emit(
                    UserRejectObservation(
                        tool_name=action.tool_name,
                        tool_call_id=action.tool_call_id,
                        action_id=action.id,
                        rejection_reason=reason or DEFAULT_REJECTION_REASON,
                    )
                )
            self._approved = False
            if waiting:
                self._core.set_status(Status.IDLE)

    def approve_if_waiting(self) -> None:
        """A run starting on a waiting conversation approves its calls (the caller holds the
        state lock)."""
        if self._core.state.execution_status == Status.WAITING_FOR_CONFIRMATION:
            self._approved = True

    # -- what the agent asks in its step ---------------------------------------------------------

    def take_approved(self) -> list[ActionEvent]:
        """The approved calls to run now (once), or []."""
        if not self._approved:
            return []
        self._approved = False
        return unmatched_actions(self._core.state.events)

    def unanswered_wait(self) -> bool:
        """Whether calls a pause (or a crash) left without an answer must wait for approval
        again: a stop while they waited answers nothing, so the next run asks about them
        instead of letting the agent move on (the calls are not lost, and nothing runs
        unapproved)."""
        if self._approved:
            return False
        calls = unmatched_actions(self._core.state.events)
        return bool(calls) and self.needs_approval(calls)

    def needs_approval(self, actions: list[ActionEvent]) -> bool:
        """Whether this reply's `actions` must wait for approval."""
        state = self._core.state
        read_only = [
            name
            for name, tool in self._core.tools.items()
            if tool.annotations is not None and tool.annotations.readOnlyHint
        ]
        return needs_approval(
            state.confirmation_policy,
            state.security_analyzer,
            actions,
            read_only,
            state.approval_rules,
        )

    def rated(self, action: ActionEvent) -> ActionEvent:
        """`action` with the analyzer's rating (an LLM analyzer keeps what the LLM said)."""
        analyzer = self._core.state.security_analyzer
        if analyzer is None or uses_llm_risk(analyzer):
            return action
        [(_, risk)] = rate(analyzer, [action])
        if risk is SecurityRisk.UNKNOWN:
            return action
        return action.model_copy(update={"security_risk": risk.value})
