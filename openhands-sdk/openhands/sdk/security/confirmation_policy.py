"""Confirmation policies: which tool calls wait for a person's approval before they run.

Set one with `conversation.set_confirmation_policy(...)`. A call that needs approval stops the
run in `waiting_for_confirmation`; `run()` again approves it, `reject_pending_actions(reason)`
rejects it. Policies are pydantic models with a `kind`, so they are saved with the
conversation and sent over REST as `{"kind": "ConfirmRisky", "threshold": "MEDIUM"}`.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Annotated, Literal

from openhands.sdk.security.risk import SecurityRisk
from openhands.sdk.utils.kinds import KindedModel
from pydantic import ConfigDict, Field, field_validator


class ConfirmationPolicyBase(KindedModel):
    """Decides from a call's risk whether it needs approval; read back by `kind`."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    @abstractmethod
    def should_confirm(self, risk: SecurityRisk = SecurityRisk.UNKNOWN) -> bool:
        """Whether a call rated `risk` must wait for approval (abstract: the base class
        itself cannot be made, a TypeError as in the reference)."""


class AlwaysConfirm(ConfirmationPolicyBase):
    """Every tool call waits for approval."""

    kind: Literal["AlwaysConfirm"] = "AlwaysConfirm"

    def should_confirm(self, risk: SecurityRisk = SecurityRisk.UNKNOWN) -> bool:
        return True


class NeverConfirm(ConfirmationPolicyBase):
    """No call waits (the default)."""

    kind: Literal["NeverConfirm"] = "NeverConfirm"

    def should_confirm(self, risk: SecurityRisk = SecurityRisk.UNKNOWN) -> bool:
        return False


class ConfirmRisky(ConfirmationPolicyBase):
    """Calls rated `threshold` or above wait; unrated calls wait when `confirm_unknown`."""

    kind: Literal["ConfirmRisky"] = "ConfirmRisky"
    threshold: SecurityRisk = Field(
        default=SecurityRisk.HIGH, description="The lowest risk that needs approval."
    )
    confirm_unknown: bool = Field(
        default=True, description="Whether a call nobody rated needs approval."
    )

    @field_validator("threshold")
    @classmethod
    def _rated_threshold(cls, value: SecurityRisk) -> SecurityRisk:
        if value is SecurityRisk.UNKNOWN:
            raise ValueError("threshold must be LOW, MEDIUM or HIGH (use confirm_unknown)")
        return value

    def should_confirm(self, risk: SecurityRisk = SecurityRisk.UNKNOWN) -> bool:
        if risk is SecurityRisk.UNKNOWN:
            return self.confirm_unknown
        return risk.is_riskier(self.threshold)


ConfirmationPolicy = Annotated[
    AlwaysConfirm | NeverConfirm | ConfirmRisky, Field(discriminator="kind")
]
"""Any built-in policy, read from JSON by its `kind`."""
