"""What `ask_oracle` takes and returns, and the profile it asks."""

from __future__ import annotations

from typing import Final

from openhands.sdk.tool import Action, Observation
from pydantic import Field

__all__ = ["ORACLE_PROFILE_NAME", "AskOracleAction", "AskOracleObservation"]


ORACLE_PROFILE_NAME: Final[str] = "oracle"
"""The LLM profile the Oracle is: save one under this name (`LLMProfileStore().save`)."""


class AskOracleAction(Action):
    """Arguments of `ask_oracle`."""

    question: str = Field(description="The question or dilemma, stated on its own.")
    context: str | None = Field(
        default=None,
        description="What the Oracle needs to know: what you tried, constraints, the option "
        "you lean to.",
    )


class AskOracleObservation(Observation):
    """The Oracle's answer (or why it could not answer)."""
