"""`NoOpCondenser`: the LLM sees the whole history (the default)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from openhands.sdk.context.condenser.base import CondenserBase

if TYPE_CHECKING:
    from openhands.sdk.event.condenser import Condensation
    from openhands.sdk.llm.message import Message


class NoOpCondenser(CondenserBase):
    """Never condenses."""

    kind: Literal["NoOpCondenser"] = "NoOpCondenser"

    def condense(self, messages: list[Message]) -> Condensation | None:
        return None
