"""`CondenserBase`: keeps the LLM's view of a long conversation inside its context window."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from openhands.sdk.event.condenser import Condensation
    from openhands.sdk.llm.message import Message


class CondenserBase(BaseModel):
    """Looks at the message list the agent is about to send; may condense it.

    `condense` returns a `Condensation` to record (the conversation applies it to the view
    and keeps it in the log), or None to send the messages as they are.
    """

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    def condense(self, messages: list[Message]) -> Condensation | None:
        """The condensation to apply to `messages` now, or None."""
        raise NotImplementedError

    def handles_condensation_requests(self) -> bool:
        """Whether `condense_now` can condense on request (a client's "condense" button)."""
        return False

    def condense_now(self, messages: list[Message]) -> Condensation | None:
        """Condense `messages` on request, however long they are; None when there is too
        little to condense. Only for condensers that `handles_condensation_requests`."""
        return None

    @property
    def llms(self) -> list[object]:
        """The LLMs this condenser calls (their usage is counted in the conversation)."""
        return []
