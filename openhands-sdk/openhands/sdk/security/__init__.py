"""Tool-call risk and human approval: risk ratings, analyzers and confirmation policies.

See docs/confirmation.md. Everything here is plain pydantic: cheap to import.
"""

from openhands.sdk.security.analyzer import SecurityAnalyzerBase
from openhands.sdk.security.approval_rules import AllowRule
from openhands.sdk.security.confirmation_policy import (
    AlwaysConfirm,
    ConfirmationPolicy,
    ConfirmationPolicyBase,
    ConfirmRisky,
    NeverConfirm,
)
from openhands.sdk.security.defense_in_depth import (
    PatternSecurityAnalyzer,
    PolicyRailSecurityAnalyzer,
)
from openhands.sdk.security.ensemble import EnsembleSecurityAnalyzer, SecurityAnalyzer
from openhands.sdk.security.llm_analyzer import LLMSecurityAnalyzer
from openhands.sdk.security.risk import SecurityRisk

__all__ = [
    "AllowRule",
    "AlwaysConfirm",
    "ConfirmRisky",
    "ConfirmationPolicy",
    "ConfirmationPolicyBase",
    "EnsembleSecurityAnalyzer",
    "LLMSecurityAnalyzer",
    "NeverConfirm",
    "PatternSecurityAnalyzer",
    "PolicyRailSecurityAnalyzer",
    "SecurityAnalyzer",
    "SecurityAnalyzerBase",
    "SecurityRisk",
]
