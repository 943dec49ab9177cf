"""`EnsembleSecurityAnalyzer`: several analyzers, the worst rating wins."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from openhands.sdk.security.analyzer import SecurityAnalyzerBase
from openhands.sdk.security.defense_in_depth import (
    PatternSecurityAnalyzer,
    PolicyRailSecurityAnalyzer,
)
from openhands.sdk.security.llm_analyzer import LLMSecurityAnalyzer
from openhands.sdk.security.risk import SecurityRisk
from pydantic import Field, SerializeAsAny

if TYPE_CHECKING:
    from openhands.sdk.event.action import ActionEvent


class EnsembleSecurityAnalyzer(SecurityAnalyzerBase):
    """Rates a call with the highest risk any of `analyzers` gives it.

    An analyzer that says UNKNOWN is outvoted by one that rates the call, unless
    `propagate_unknown` (then any UNKNOWN makes the result UNKNOWN, which `ConfirmRisky`
    confirms by default).
    """

    kind: Literal["EnsembleSecurityAnalyzer"] = "EnsembleSecurityAnalyzer"
    analyzers: list[SerializeAsAny[SecurityAnalyzerBase]] = Field(
        min_length=1,
        description="The analyzers asked: built-in ones or your own SecurityAnalyzerBase "
        "subclasses (read back by their `kind`).",
    )
    propagate_unknown: bool = Field(
        default=False, description="Whether one UNKNOWN makes the whole rating UNKNOWN."
    )

    def security_risk(self, action: ActionEvent) -> SecurityRisk:
        risks = [risk for _, risk in self._rated(action)]
        known = [risk for risk in risks if risk is not SecurityRisk.UNKNOWN]
        if not known or (self.propagate_unknown and len(known) < len(risks)):
            return SecurityRisk.UNKNOWN
        return max(known)

    def _rated(self, action: ActionEvent) -> list[tuple[ActionEvent, SecurityRisk]]:
        rated: list[tuple[ActionEvent, SecurityRisk]] = []
        for analyzer in self.analyzers:
            rated.extend(analyzer.analyze_pending_actions([action]))
        return rated


SecurityAnalyzer = Annotated[
    LLMSecurityAnalyzer
    | PatternSecurityAnalyzer
    | PolicyRailSecurityAnalyzer
    | EnsembleSecurityAnalyzer,
    Field(discriminator="kind"),
]
"""Any built-in analyzer, read from JSON by its `kind`."""


def uses_llm_risk(analyzer: SecurityAnalyzerBase | None) -> bool:
    """Whether `analyzer` reads the risk the LLM states (so the tools must ask for it)."""
    if isinstance(analyzer, LLMSecurityAnalyzer):
        return True
    if isinstance(analyzer, EnsembleSecurityAnalyzer):
        return any(uses_llm_risk(inner) for inner in analyzer.analyzers)
    return False
