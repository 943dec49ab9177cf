"""`LLMSecurityAnalyzer`: the risk the LLM itself states with each call.

With this analyzer set, every tool that is not read-only asks the LLM for a `security_risk`
argument (LOW, MEDIUM or HIGH) next to its own; the call is rated what the LLM said, and
UNKNOWN when it said nothing usable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from openhands.sdk.security.analyzer import SecurityAnalyzerBase
from openhands.sdk.security.risk import SecurityRisk

if TYPE_CHECKING:
    from openhands.sdk.event.action import ActionEvent


class LLMSecurityAnalyzer(SecurityAnalyzerBase):
    """Rates a call with the `security_risk` the LLM gave it."""

    kind: Literal["LLMSecurityAnalyzer"] = "LLMSecurityAnalyzer"

    def security_risk(self, action: ActionEvent) -> SecurityRisk:
        return SecurityRisk.parse(action.security_risk)
