"""`ConversationVisualizerBase`: the seam for anything that shows a conversation's events.

A conversation built with `visualizer=` (an instance, or a class it instantiates with no
arguments) calls `initialize(state)` once, then `on_event(event)` for every event after the
callbacks. Delegating tools ask it for a `create_sub_visualizer(agent_id)` per sub-agent.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, final

from openhands.sdk.errors import InvalidArgumentTypeError
from openhands.sdk.event.base import Event

if TYPE_CHECKING:
    from openhands.sdk.conversation.conversation_stats import ConversationStats


class ConversationVisualizerBase(ABC):
    """Shows events as they happen; subclasses implement `on_event`."""

    def __init__(self) -> None:
        self._state: Any = None

    @final
    def initialize(self, state: Any) -> None:
        """Attach the conversation's state (called by the conversation, once)."""
        self._state = state

    @property
    def conversation_stats(self) -> ConversationStats | None:
        """The attached conversation's LLM usage, or None before `initialize`."""
        state = self._state
        return None if state is None else state.stats

    @abstractmethod
    def on_event(self, event: Event) -> None:
        """Show one event."""

    def create_sub_visualizer(self, agent_id: str) -> ConversationVisualizerBase | None:
        """A visualizer for a sub-agent named `agent_id`; None (the default) shows nothing."""
        del agent_id
        return None


VisualizerOption = type[ConversationVisualizerBase] | ConversationVisualizerBase | None
"""`visualizer=`: an instance, a class to instantiate with no arguments, or None (none)."""


def make_visualizer(value: Any) -> ConversationVisualizerBase | None:
    """The visualizer for `visualizer=`: an instance, a class (instantiated), or None.

    Raises TypeError for anything else.
    """
    if value is None:
        return None
    if isinstance(value, ConversationVisualizerBase):
        return value
    if isinstance(value, type) and issubclass(value, ConversationVisualizerBase):
        return value()
    raise InvalidArgumentTypeError(
        "visualizer must be a ConversationVisualizerBase instance or subclass, or None; "
        f"got {value!r}"
    )
