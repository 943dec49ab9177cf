"""Events about the conversation itself: pauses, interrupts, errors and state updates."""

from __future__ import annotations

from typing import Any

from openhands.sdk.event.base import Event, EventSource
from pydantic import Field


class PauseEvent(Event):
    """The user asked the conversation to pause after its current step."""

    source: EventSource = "user"


class InterruptEvent(Event):
    """The user interrupted the run: the step under way is cut short and the run pauses.

    Unlike a pause (after the current step), an interrupt drops an LLM reply that arrives
    after it and runs no further tool call of that step.
    """

    source: EventSource = "user"


class ConversationErrorEvent(Event):
    """A run failed: `code` names the failure class, `detail` says what happened."""

    code: str
    detail: str
    classification: dict[str, Any] | None = Field(
        default=None,
        description="Structured error kind (the reference server sends one), if classified.",
        exclude_if=lambda value: value is None,
    )


FULL_STATE_KEY = "full_state"
"""The `key` of a snapshot of the whole conversation (its `value`: the ConversationInfo).

The server sends one on each event socket when it opens and after each run, never stores
it; the reference's clients rely on it, this SDK's client skips it."""


class ConversationStateUpdateEvent(Event):
    """A piece of conversation state changed (`key`, `value`), e.g. the goal chip."""

    key: str
    value: Any = None
