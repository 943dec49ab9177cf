"""`SecurityAnalyzerBase`: rates a tool call's risk before it runs.

The conversation asks its analyzer (`conversation.set_security_analyzer(...)`) for the risk of
each call, and its confirmation policy decides from that risk whether the call waits for
approval. Without an analyzer every call is UNKNOWN.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from openhands.sdk.security.risk import SecurityRisk
from openhands.sdk.utils.kinds import KindedModel
from pydantic import ConfigDict

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from openhands.sdk.event.action import ActionEvent


class SecurityAnalyzerBase(KindedModel):
    """Rates tool calls; subclasses implement `security_risk`. Read back by `kind` (a
    subclass's `kind` field, else its class name), your own subclasses included. Not frozen,
    as in the reference: an analyzer may keep state between calls (counts, caches)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    def security_risk(self, action: ActionEvent) -> SecurityRisk:
        """The risk of running `action`."""
        raise NotImplementedError

    def analyze_event(self, event: object) -> SecurityRisk | None:
        """The risk of `event` if it is a tool call (an ActionEvent), else None."""
        from openhands.sdk.event.action import ActionEvent

        return self.security_risk(event) if isinstance(event, ActionEvent) else None

    def analyze_pending_actions(
        self, actions: Sequence[ActionEvent]
    ) -> list[tuple[ActionEvent, SecurityRisk]]:
        """Each action with its risk; an analyzer that fails rates its call HIGH."""
        rated: list[tuple[ActionEvent, SecurityRisk]] = []
        for action in actions:
            try:
                risk = self.security_risk(action)
            except Exception:  # a broken analyzer must not wave a call through: HIGH
                logger.warning(
                    "%s failed to rate %s; treating it as HIGH risk",
                    type(self).__name__,
                    action.tool_name,
                    exc_info=True,
                )
                risk = SecurityRisk.HIGH
            rated.append((action, risk))
        return rated


def call_text(action: ActionEvent) -> str:
    """What a rule-based analyzer reads of a call: its tool name and raw arguments."""
    return f"{action.tool_name} {action.tool_call.arguments or ''}"
