"""`EventPublisher`: appends events to a conversation's log, then hands them to callbacks."""

from __future__ import annotations

import contextlib
import logging
from collections import deque
from collections.abc import Callable, Sequence

from openhands.sdk.conversation.state import ConversationState
from openhands.sdk.event.base import Event

logger = logging.getLogger(__name__)

Callback = Callable[[Event], None]


class EventPublisher:
    """Persists each event (fsynced when on disk) and only then gives it to every callback.

    Callbacks run in the emitting thread, one event at a time, in log order, while the state
    lock is held; an event emitted by a callback is delivered after the current one has
    reached every callback. A failing callback is logged and never stops the others.
    """

    def __init__(self, state: ConversationState, callbacks: Sequence[Callback] = ()) -> None:
        self._state = state
        self._lock = state.lock
        self._callbacks: list[Callback] = list(callbacks)
        self._backlog: deque[Event] = deque()
        self._delivering = False

    def add(self, callback: Callback) -> None:
        """Call `callback(event)` for every event emitted from now on."""
        with self._lock:
            self._callbacks.append(callback)

    def remove(self, callback: Callback) -> None:
        """Stop calling `callback` (added earlier); unknown callbacks are ignored."""
        with self._lock, contextlib.suppress(ValueError):
            self._callbacks.remove(callback)

    def emit(self, event: Event) -> Event:
        """Append `event` to the log, then deliver it (and anything emitted meanwhile).

        Returns the event as stored (stamped with its `parent_id`), which is also what the
        callbacks get.
        """
        with self._lock:
            event = self._state.append_event(event)
            self._backlog.append(event)
            if self._delivering:
                return event  # a callback emitted it: the outer emit delivers it, in order
            self._delivering = True
            try:
                while self._backlog:
                    self._deliver(self._backlog.popleft())
            finally:
                self._delivering = False
            return event

    def _deliver(self, event: Event) -> None:
        for callback in tuple(self._callbacks):
            try:
                callback(event)
            except Exception:
                logger.exception(
                    "conversation %s: callback failed on %s", self._state.id, event.kind
                )
