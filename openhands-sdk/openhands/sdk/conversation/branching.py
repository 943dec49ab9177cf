"""Branching a `LocalConversation`'s history: `fork()` into a new conversation, `navigate_to()`.

A mixin, like the conversation's other parts. What a fork copies is decided in
`conversation.fork` (shared with the server); the tree of events and the HEAD are in
`conversation.branch`. This part only adds the two public calls on a live conversation.
"""

from __future__ import annotations

import logging
import threading
import uuid
from typing import TYPE_CHECKING

from openhands.sdk.conversation.errors import ConversationAlreadyRunningError
from openhands.sdk.conversation.fork import copy_agent, fork_state
from openhands.sdk.conversation.snapshot import HEAD_KEY
from openhands.sdk.conversation.visualizer.base import make_visualizer
from openhands.sdk.event.state import ConversationStateUpdateEvent

if TYPE_CHECKING:
    from typing import Self

    from openhands.sdk.agent.agent import AgentBase
    from openhands.sdk.conversation.state import ConversationState
    from openhands.sdk.conversation.stuck import StuckDetector
    from openhands.sdk.conversation.visualizer.base import ConversationVisualizerBase
    from openhands.sdk.event.base import Event

__all__ = ["Branching"]

logger = logging.getLogger(__name__)


class Branching:
    """The fork and HEAD part of `LocalConversation` (see the module docstring)."""

    if TYPE_CHECKING:
        # Provided by LocalConversation and its other parts.
        _state: ConversationState
        _lock: threading.RLock
        _stuck_detector: StuckDetector
        _visualizer: ConversationVisualizerBase | None

        @property
        def id(self) -> uuid.UUID: ...

        @property
        def agent(self) -> AgentBase: ...

        @property
        def is_running(self) -> bool: ...

        def _check_open(self) -> None: ...

        def _emit(self, event: Event) -> Event: ...

        def _open_fork(
            self, state: ConversationState, visualizer: ConversationVisualizerBase | None
        ) -> Self:
            """A conversation set up around the forked `state`, with this one's settings."""
            ...

    def fork(
        self,
        *,
        conversation_id: uuid.UUID | str | None = None,
        agent: AgentBase | None = None,
        title: str | None = None,
        tags: dict[str, str] | None = None,
        reset_metrics: bool = True,
        from_event_id: str | None = None,
    ) -> Self:
        """A new conversation (new id) that starts with a copy of this one's history.

        `from_event_id`: copy only the branch from the root to that event, and continue from
        there; None copies every event and keeps this HEAD. The fork gets `agent`, or a copy
        of this agent with its own LLM metrics; `tags` (plus "title" when `title` is given)
        and the title; this conversation's limits, hooks, secrets and visualizer class. Its
        usage starts at zero unless `reset_metrics=False`. Creating it records no event in
        either conversation; it is idle. A persisted conversation's fork is persisted next to
        it. Raises `UnknownEventError` (a ValueError) for an unknown `from_event_id` and
        ValueError for an id already in use.
        """
        self._check_open()
        fork_agent = agent if agent is not None else copy_agent(self.agent)
        visualizer = make_visualizer(type(self._visualizer)) if self._visualizer else None
        with self._lock:
            state = fork_state(
                self._state,
                conversation_id=conversation_id,
                agent=fork_agent,
                title=title,
                tags=tags,
                reset_metrics=reset_metrics,
                from_event_id=from_event_id,
            )
            fork = self._open_fork(state, visualizer)
        logger.info(
            "conversation %s forked into %s (%s)",
            self.id,
            fork.id,
            "whole log" if from_event_id is None else f"branch up to {from_event_id}",
        )
        return fork

    def navigate_to(self, event_id: str | None) -> None:
        """Move the HEAD: the next event follows `event_id`, starting a sibling branch.

        The agent's context becomes the branch from the root to `event_id` (None: an empty
        tree; the next event starts a new root). Nothing is deleted: the other branches stay
        in `state.events`, out of `state.view`. The move is recorded (a state update), so it
        survives a reopen. Raises `UnknownEventError` (a ValueError) for an id that is not an
        event of this conversation and `ConversationAlreadyRunningError` during a run.
        """
        self._check_open()
        with self._lock:
            if self.is_running:
                raise ConversationAlreadyRunningError(
                    f"Conversation {self.id} is running; pause it and wait for the run to end "
                    "before moving its HEAD."
                )
            if event_id is not None:
                self._state.require_event(event_id)
            if event_id == self._state.leaf_event_id:
                return
            self._emit(ConversationStateUpdateEvent(key=HEAD_KEY, value=event_id))
