"""Pub/sub from a conversation's event log to async subscribers (WebSockets).

Subscribers do not get events pushed into a queue; they keep a cursor into the event log
and are woken when it grows. The log is the single source of order, so a subscriber that
starts from a given position sees every later event exactly once, even when events are
appended from several threads, and a slow subscriber never grows an unbounded queue.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator

from openhands.sdk.conversation import EventLog
from openhands.sdk.errors import OpenHandsError
from openhands.sdk.event import Event

BATCH = 256
"""Events handed to a subscriber per wake-up at most (keeps each send bounded)."""


class SubscriptionClosedError(OpenHandsError):
    """The publisher closed (its conversation was deleted or the server is stopping)."""


class Subscription:
    """One subscriber's cursor into the log; iterate it to receive events in log order."""

    def __init__(self, pubsub: EventPubSub, start: int) -> None:
        self._pubsub = pubsub
        self.cursor = start
        self._wake = asyncio.Event()
        self._wake.set()  # read whatever is already past the cursor first
        self._state_wanted = False

    def notify(self) -> None:
        """Wake the subscriber (called on the event loop)."""
        self._wake.set()

    def want_state(self) -> None:
        """Ask for an empty batch: the subscriber then sends the conversation's state again."""
        self._state_wanted = True
        self._wake.set()

    async def batches(self) -> AsyncIterator[list[Event]]:
        """Yield lists of new events as they are appended, until the publisher closes."""
        log = self._pubsub.log
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._pubsub.closed:
                raise SubscriptionClosedError("the conversation is gone")
            while self.cursor < len(log):
                batch = log.read(self.cursor, min(len(log), self.cursor + BATCH))
                self.cursor += len(batch)
                yield batch
            if self._state_wanted:
                self._state_wanted = False
                yield []

    def close(self) -> None:
        """Stop receiving notifications."""
        self._pubsub.unsubscribe(self)


class EventPubSub:
    """Wakes subscribers when the event log grows; `publish` may be called from any thread."""

    def __init__(self, log: EventLog, loop: asyncio.AbstractEventLoop) -> None:
        self.log = log
        self._loop = loop
        self._subscribers: set[Subscription] = set()
        self._pending = threading.Event()
        self.closed = False

    def subscribe(self, start: int) -> Subscription:
        """A subscription whose first event is the one at index `start` of the log."""
        subscription = Subscription(self, max(0, start))
        self._subscribers.add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        """Forget `subscription`."""
        self._subscribers.discard(subscription)

    @property
    def subscriber_count(self) -> int:
        """How many subscribers are attached."""
        return len(self._subscribers)

    def publish(self) -> None:
        """Note that the log grew (thread-safe; wake-ups are coalesced)."""
        # Without subscribers there is nobody to wake (a new one reads from its cursor first),
        # so a busy conversation nobody watches costs the event loop nothing.
        if not self._subscribers or self._pending.is_set() or self._loop.is_closed():
            return
        self._pending.set()
        try:
            self._loop.call_soon_threadsafe(self._wake_all)
        except RuntimeError:  # the loop closed between the check and the call
            self._pending.clear()

    def _wake_all(self) -> None:
        self._pending.clear()
        for subscription in list(self._subscribers):
            subscription.notify()

    def want_state(self) -> None:
        """Ask every subscriber to send the conversation's state again (on the event loop)."""
        for subscription in list(self._subscribers):
            subscription.want_state()

    def close(self) -> None:
        """End every subscription (called on the event loop)."""
        self.closed = True
        for subscription in list(self._subscribers):
            subscription.notify()
        self._subscribers.clear()
