"""`LLMSummarizingCondenser`: when the view grows past `max_size` messages, an LLM summarizes
the older part and the summary takes its place.

Kept: the system prompt, the first `keep_first` messages after it (usually the task), and
the newest half of `max_size`. Replaced: everything between, by one message with the summary
(an earlier summary is in that range, so summaries fold into each other). A tool call and its
results always stay on the same side of a cut: providers reject one without the other.
The work per step stays flat: condensing happens once every ~`max_size / 2` messages and
reads only the forgotten part.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

from openhands.sdk.context.condenser.base import CondenserBase
from openhands.sdk.event.condenser import Condensation
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.message import Message, TextContent
from pydantic import Field, model_validator

if TYPE_CHECKING:
    from typing import Self

logger = logging.getLogger(__name__)

SUMMARY_INSTRUCTIONS = """\
You condense the earlier part of an AI coding agent's conversation so the agent can go on
without it. Write a brief, factual summary for the agent: the user's goals and constraints,
what was done (files created or changed, commands run and their outcome), what was learned,
and what is still open. Keep exact file paths, names, numbers and error messages. No preamble."""

MESSAGE_CHARS = 2_000
"""How much of one forgotten message the summarizer reads (the rest is cut in the middle)."""


class LLMSummarizingCondenser(CondenserBase):
    """Summarizes the older part of the view with `llm` once it passes `max_size` messages."""

    kind: Literal["LLMSummarizingCondenser"] = "LLMSummarizingCondenser"
    llm: LLM = Field(description="The LLM that writes summaries (give it its own usage_id).")
    max_size: int = Field(
        default=120, gt=0, description="Messages in the LLM's view before it is condensed."
    )
    keep_first: int = Field(
        default=2, ge=0, description="Messages after the system prompt that are always kept."
    )
    max_summary_input_chars: int = Field(
        default=60_000,
        gt=0,
        description="How much forgotten text one summary call reads at most (the newest).",
    )

    @model_validator(mode="after")
    def _room_to_condense(self) -> Self:
        if self.keep_first >= self.max_size // 2:
            raise ValueError(
                f"keep_first ({self.keep_first}) must be below half of max_size "
                f"({self.max_size}), or nothing is ever condensed"
            )
        return self

    @property
    def llms(self) -> list[object]:
        return [self.llm]

    def condense(self, messages: list[Message]) -> Condensation | None:
        if len(messages) <= self.max_size:
            return None
        return self._condense(messages, keep=self.max_size // 2)

    def handles_condensation_requests(self) -> bool:
        return True

    def condense_now(self, messages: list[Message]) -> Condensation | None:
        """Summarize the older half of what follows the kept head (at most what `condense`
        would), however short the view is."""
        head = self._head(messages)
        keep = min(self.max_size // 2, max(1, (len(messages) - head) // 2))
        return self._condense(messages, keep=keep)

    def _head(self, messages: list[Message]) -> int:
        head = (1 if messages and messages[0].role == "system" else 0) + self.keep_first
        while head < len(messages) and messages[head].role == "tool":
            head += 1  # the kept calls keep their results
        return head

    def _condense(self, messages: list[Message], *, keep: int) -> Condensation | None:
        """Replace the messages between the head and the newest `keep` by their summary."""
        head = self._head(messages)
        cut = len(messages) - keep
        while cut > head and messages[cut].role == "tool":
            cut -= 1  # the kept results keep their calls
        if cut - head < 2:
            return None
        forgotten = messages[head:cut]
        try:
            response = self.llm.completion(
                [
                    Message(role="system", content=[TextContent(text=SUMMARY_INSTRUCTIONS)]),
                    Message(role="user", content=[TextContent(text=self._transcript(forgotten))]),
                ],
                stream=False,
            )
        except Exception as exc:  # a failing summary must not stop the agent: send it all
            logger.warning("condenser: the summary call failed, not condensing: %s", exc)
            return None
        summary = response.message.text.strip() or "(the summarizer returned nothing)"
        return Condensation(
            summary=summary,
            summary_offset=head,
            forgotten_messages=cut - head,
            llm_response_id=response.id or "",
        )

    def _transcript(self, messages: list[Message]) -> str:
        parts: list[str] = []
        for message in messages:
            text = message.text
            for call in message.tool_calls or []:
                text += f"\n[calls {call.name} {call.arguments}]"
            if len(text) > MESSAGE_CHARS:
                half = MESSAGE_CHARS // 2
                text = f"{text[:half]}\n[... cut ...]\n{text[-half:]}"
            parts.append(f"[{message.role}] {text}")
        transcript = "\n\n".join(parts)
        if len(transcript) > self.max_summary_input_chars:
            transcript = "[... older part cut ...]\n" + transcript[-self.max_summary_input_chars :]
        return "Summarize this part of the conversation:\n\n" + transcript
