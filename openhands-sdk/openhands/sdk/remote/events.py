"""The client's mirror of a server conversation's event log, kept in sync over a WebSocket.

`RemoteEventCache` holds the events in server log order (the server's socket streams from a
cursor into its log, so positions match) and lets callers block until it grows.
`EventStream` is the background thread that fills it: it connects with `after=<last event
id>` (or `resend_all`), so nothing between a REST read and the subscription is missed, and
reconnects the same way when the socket drops, so nothing is duplicated either.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

from openhands.sdk.event.base import Event, UnknownEventKindError
from openhands.sdk.event.state import FULL_STATE_KEY, ConversationStateUpdateEvent
from openhands.sdk.remote.client import RemoteClient
from openhands.sdk.remote.errors import (
    RemoteAuthenticationError,
    RemoteConnectionError,
    RemoteConversationError,
    RemoteConversationNotFoundError,
)
from pydantic import ValidationError

logger = logging.getLogger(__name__)

Callback = Callable[[Event], None]

AUTH_CLOSE_CODES = frozenset({1008, 4001, 4401, 4403})
"""Close codes a server uses to refuse a socket's credentials: reconnecting will not help."""
GONE_CLOSE_CODE = 4004
NOT_FOUND_REASON = "Conversation not found"
"""How a server (this one or the reference) closes a socket to a conversation it lacks."""
RECONNECT_BUDGET = 60.0
"""Seconds of failed reconnects after which the stream gives up and waiters get an error."""


class RemoteEventCache:
    """A read-only, thread-safe list of a remote conversation's events, in server order."""

    def __init__(self) -> None:
        """Start empty."""
        self._events: list[Event] = []
        self._ids: dict[str, int] = {}
        self._changed = threading.Condition()
        self._failure: RemoteConversationError | None = None
        self._wakeups = 0

    def add(self, event: Event) -> bool:
        """Append `event` unless an event with its id is already here; True if appended."""
        with self._changed:
            if event.id in self._ids:
                return False
            self._ids[event.id] = len(self._events)
            self._events.append(event)
            self._changed.notify_all()
            return True

    def fail(self, error: RemoteConversationError) -> None:
        """Record that no more events will come, and wake every waiter with `error`."""
        with self._changed:
            self._failure = error
            self._changed.notify_all()

    def wake(self) -> None:
        """Make current waiters return False so they re-read the server's state over REST."""
        with self._changed:
            self._wakeups += 1
            self._changed.notify_all()

    def wait_for_length(self, length: int, timeout: float | None) -> bool:
        """Block until the cache holds more than `length` events; False on timeout or `wake()`.

        Raises the stream's error if it gave up (so a waiter never hangs on a dead server).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            wakeups = self._wakeups
            while len(self._events) <= length:
                if self._failure is not None:
                    raise self._failure
                if self._wakeups != wakeups:
                    return False
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._changed.wait(remaining)
            return True

    @property
    def last_id(self) -> str | None:
        """The id of the newest event, or None when empty."""
        with self._changed:
            return self._events[-1].id if self._events else None

    @property
    def last_timestamp(self) -> datetime | None:
        """The time stamp of the newest event, or None when empty."""
        with self._changed:
            return self._events[-1].timestamp if self._events else None

    def read(self, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events with index in [start, stop)."""
        with self._changed:
            return self._events[start:stop]

    def get(self, event_id: str) -> Event | None:
        """The event with `event_id`, or None."""
        with self._changed:
            index = self._ids.get(event_id)
            return None if index is None else self._events[index]

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.read())

    def __getitem__(self, index: int) -> Event:
        return self._events[index]


def parse_event(data: str | bytes | dict[str, Any]) -> Event | None:
    """An `Event` from its JSON (text or dict), or None (logged) for a frame that is not one."""
    try:
        if isinstance(data, dict):
            return Event.model_validate(data)
        return Event.model_validate_json(data)
    except (ValidationError, UnknownEventKindError, ValueError) as exc:
        logger.warning("Ignoring a frame that is not a known event: %s", str(exc).splitlines()[0])
        return None


def _is_snapshot(event: Event) -> bool:
    """A `full_state` frame: a server's snapshot of the conversation, not an event of its log.

    The mirror holds the log in its order (positions matter to `run()`), so it skips them."""
    return isinstance(event, ConversationStateUpdateEvent) and event.key == FULL_STATE_KEY


class EventStream:
    """A background thread that mirrors a conversation's events into a `RemoteEventCache`."""

    def __init__(
        self,
        client: RemoteClient,
        conversation_id: uuid.UUID,
        cache: RemoteEventCache,
        callbacks: Sequence[Callback],
    ) -> None:
        """Prepare a stream; `start()` connects."""
        self._client = client
        self._conversation_id = conversation_id
        self._cache = cache
        self._callbacks = list(callbacks)
        self._closing = threading.Event()
        self._socket: Any = None
        self._socket_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Connect now (so the subscription exists when this returns), then read in a thread."""
        self._connect()
        self._thread = threading.Thread(
            target=self._read_forever, name=f"remote-events-{self._conversation_id}", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        """Close the socket and wait briefly for the reader thread to end."""
        self._closing.set()
        with self._socket_lock:
            socket = self._socket
        if socket is not None:
            socket.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    # -- internals ----------------------------------------------------------------------------

    def _connect(self) -> None:
        from websockets.exceptions import InvalidStatus
        from websockets.sync.client import connect

        after = self._cache.last_id
        since = self._cache.last_timestamp
        url = self._client.socket_url(self._conversation_id, after=after, since=since)
        try:
            socket = connect(url, additional_headers=self._client.headers, open_timeout=10)
        except InvalidStatus as exc:
            code = exc.response.status_code
            if code == 400 and after is not None:
                # The server does not know our last event (its log was replaced): replay it
                # all; the cache drops the events it already has by id.
                logger.warning("event socket: %s; replaying all events", exc)
                url = self._client.socket_url(self._conversation_id, after=None, since=None)
                socket = connect(url, additional_headers=self._client.headers, open_timeout=10)
                self._adopt(socket)
                return
            if code in (401, 403):
                has_key = bool(self._client.headers)
                raise RemoteAuthenticationError(self._client.host, code, has_key) from exc
            if code == 404:
                raise self._not_found("its event socket answered 404") from exc
            raise RemoteConnectionError(self._client.host, f"event socket: HTTP {code}") from exc
        except (OSError, TimeoutError) as exc:
            raise RemoteConnectionError(self._client.host, f"event socket: {exc}") from exc
        self._adopt(socket)

    def _not_found(self, why: str) -> RemoteConversationNotFoundError:
        return RemoteConversationNotFoundError(
            f"Conversation {self._conversation_id} is not on the agent server at "
            f"{self._client.host} ({why})."
        )

    def _adopt(self, socket: Any) -> None:
        # Entering the connection is how websockets >= 17.1 is told that its life is managed
        # here (closed by `close()` from another thread) rather than by a `with` block.
        socket.__enter__()
        with self._socket_lock:
            self._socket = socket
        if self._closing.is_set():
            socket.close()

    def _read_forever(self) -> None:
        failing_since: float | None = None
        delay = 0.05
        while not self._closing.is_set():
            received, close_code, close_reason = self._pump()
            if self._closing.is_set():
                return
            # A deleted conversation and a server shutting down both close with 4004; the
            # reconnect below tells them apart (not found versus a server that comes back).
            if close_code == GONE_CLOSE_CODE and close_reason == NOT_FOUND_REASON:
                self._cache.fail(self._not_found("its event socket closed: not found"))
                return
            if close_code in AUTH_CLOSE_CODES:
                self._cache.fail(
                    RemoteAuthenticationError(
                        self._client.host, close_code, bool(self._client.headers)
                    )
                )
                return
            if received:
                failing_since, delay = None, 0.05
            if failing_since is None:
                failing_since = time.monotonic()
            # A socket that keeps dropping without delivering anything counts as one long
            # failure, so a server that accepts and then hangs up cannot spin this loop.
            while True:
                if self._closing.wait(delay):
                    return
                delay = min(delay * 2, 2.0)
                try:
                    self._connect()
                    # A restarted server publishes nothing about a run it lost (it reloads
                    # the conversation as idle), so waiters must look at its state now.
                    self._cache.wake()
                    break
                except (RemoteAuthenticationError, RemoteConversationNotFoundError) as exc:
                    self._cache.fail(exc)
                    return
                except RemoteConnectionError as exc:
                    if time.monotonic() - failing_since >= RECONNECT_BUDGET:
                        self._cache.fail(exc)
                        return

    def _pump(self) -> tuple[bool, int | None, str]:
        """Read frames until the socket closes; (any frame received?, close code, reason)."""
        from websockets.exceptions import ConnectionClosed

        socket = self._socket
        received = False
        try:
            for frame in socket:
                received = True
                self._on_frame(frame)
        except ConnectionClosed:
            pass
        except OSError as exc:
            logger.debug("event socket error: %s", exc)
        close = getattr(socket, "close_code", None)
        reason = getattr(socket, "close_reason", None)
        return (
            received,
            close if isinstance(close, int) else None,
            reason if isinstance(reason, str) else "",
        )

    def _on_frame(self, frame: str | bytes) -> None:
        event = parse_event(frame)
        if event is None or _is_snapshot(event) or not self._cache.add(event):
            return
        for callback in self._callbacks:
            try:
                callback(event)
            except Exception:
                logger.exception("remote conversation callback failed on %s", event.kind)
