"""`Branching`: a `LocalConversation`'s history forked into a new conversation, or its HEAD moved.

A collaborator the conversation owns (see `conversation.core`). What a fork copies is decided
in `conversation.fork` (shared with the server); the tree of events and the HEAD are in
`conversation.branch`. This part adds the two calls on a live conversation; the host opens
the forked state as a conversation of its own kind (`open_fork`).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

from openhands.sdk.conversation.core import ConversationCore, require_open
from openhands.sdk.conversation.errors import ConversationAlreadyRunningError
from openhands.sdk.conversation.fork import copy_agent, fork_state
from openhands.sdk.conversation.snapshot import HEAD_KEY
from openhands.sdk.event.state import ConversationStateUpdateEvent

if TYPE_CHECKING:
    from openhands.sdk.agent.agent import AgentBase
    from openhands.sdk.conversation.state import ConversationState

__all__ = ["Branching"]

logger = logging.getLogger(__name__)

Fork = TypeVar("Fork")
"""What the host makes of a forked state (a `LocalConversation`)."""


class Branching(Generic[Fork]):
    """Fork and HEAD moves of one conversation (see the module docstring)."""

    def __init__(
        self, core: ConversationCore, open_fork: Callable[[ConversationState], Fork]
    ) -> None:
        self._core = core
        self._open_fork = open_fork

    def fork(
        self,
        *,
        conversation_id: uuid.UUID | str | None = None,
        agent: AgentBase | None = None,
        title: str | None = None,
        tags: dict[str, str] | None = None,
        reset_metrics: bool = True,
        from_event_id: str | None = None,
    ) -> Fork:
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
        require_open(self._core)
        source = self._core.state
        fork_agent = agent if agent is not None else copy_agent(source.agent)
        with source.lock:
            state = fork_state(
                source,
                conversation_id=conversation_id,
                agent=fork_agent,
                title=title,
                tags=tags,
                reset_metrics=reset_metrics,
                from_event_id=from_event_id,
            )
            fork = self._open_fork(state)
        logger.info(
            "conversation %s forked into %s (%s)",
            source.id,
            state.id,
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
        require_open(self._core)
        state = self._core.state
        with state.lock:
            if self._core.is_running:
                raise ConversationAlreadyRunningError(
                    f"Conversation {state.id} is running; pause it and wait for the run to end "
                    "before moving its HEAD."
                )
            if event_id is not None:
                state.require_event(event_id)
            if event_id == state.leaf_event_id:
                return
            self._core.emit(ConversationStateUpdateEvent(key=HEAD_KEY, value=event_id))
