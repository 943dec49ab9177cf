"""Conversation titles: one short LLM call on the first user message, or that message cut."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.event.base import Event
from openhands.sdk.event.message import MessageEvent
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.message import Message, TextContent

__all__ = [
    "TITLE_USAGE_ID",
    "first_user_message",
    "generate_conversation_title",
    "truncate_title",
]

logger = logging.getLogger(__name__)

TITLE_USAGE_ID = "title-generation"
"""The usage_id of the LLM copy that writes titles (its cost is counted under it)."""

MAX_PROMPT_CHARS = 1000
"""How much of the first message the title prompt quotes."""

_SYSTEM = (
    "You name conversations between a user and a coding agent. Given the user's first "
    "message, answer with a short, specific title and nothing else: no quotes, no "
    "trailing period, no explanation."
)


def first_user_message(events: Iterable[Event]) -> str | None:
    """The text of the first user message that has any, or None."""
    for event in events:
        if isinstance(event, MessageEvent) and event.source == "user":
            text = " ".join(
                part.text for part in event.llm_message.content if isinstance(part, TextContent)
            ).strip()
            if text:
                return text
    return None


def truncate_title(text: str, max_length: int) -> str:
    """`text` on one line, cut to `max_length` characters with "..." if it was longer."""
    line = " ".join(text.split())
    if len(line) <= max_length:
        return line
    return line[: max(max_length - 3, 0)].rstrip() + "..."


def generate_conversation_title(
    events: Iterable[Event], llm: LLM | None = None, max_length: int = 50
) -> str:
    """A title for the conversation whose history is `events`.

    With an `llm`, one non-streaming completion (under usage_id `TITLE_USAGE_ID` if the
    caller registered that copy, else the LLM's own); if it fails or says nothing, the first
    user message cut to `max_length`. Raises ValueError if there is no user message.
    """
    if max_length < 4:
        raise InvalidArgumentError(f"max_length must be at least 4 characters, got {max_length}")
    message = first_user_message(events)
    if message is None:
        raise InvalidArgumentError(
            "The conversation has no user message to name it after yet: send one first."
        )
    if llm is not None:
        quoted = message if len(message) <= MAX_PROMPT_CHARS else message[:MAX_PROMPT_CHARS] + "..."
        prompt = [
            Message(role="system", content=[TextContent(text=_SYSTEM)]),
            Message(
                role="user",
                content=[
                    TextContent(
                        text=f"Title (at most {max_length} characters) for a conversation "
                        f"that starts with:\n\n{quoted}"
                    )
                ],
            ),
        ]
        try:
            reply = llm.completion(prompt, stream=False).message
            title = " ".join(
                part.text for part in reply.content if isinstance(part, TextContent)
            ).strip()
            title = title.strip("\"'").strip()
            if title:
                return truncate_title(title, max_length)
            logger.warning("the title LLM answered nothing; using the first message")
        except Exception as exc:  # any provider failure: a title is never worth a crash
            logger.warning("title generation failed (%s); using the first message", exc)
    return truncate_title(message, max_length)
