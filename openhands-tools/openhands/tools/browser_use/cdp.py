"""The Chrome DevTools Protocol over Chromium's debugging pipe: commands, answers, events.

Chromium started with `--remote-debugging-pipe` reads commands on its descriptor 3 and writes
answers and events on 4, each a JSON object ended by a NUL byte. A pipe, not a port, because
the browser may run in a sandbox with a network namespace of its own, where a port would be
out of this process's reach (and open to every process in that namespace). Commands for one
page carry the `sessionId` of a flat `Target.attachToTarget` session.

One reader thread parses everything Chromium writes: answers wake their caller, events go to
the waiters registered for them (`expect`) and to the listeners (`listen`, e.g. the
recorder's screencast frames). Standard library only.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openhands.sdk.errors import OpenHandsError

__all__ = ["BrowserClosedError", "CDPConnection", "CDPError", "EventWaiter"]

Event = dict[str, Any]
"""A protocol event: `method`, `params` and, for a page's event, `sessionId`."""


class CDPError(OpenHandsError, RuntimeError):
    """A DevTools command failed or got no answer in time; the message says which and why."""


class BrowserClosedError(CDPError):
    """The browser is gone (it exited or was closed); the next browser action starts a new one."""


@dataclass
class _Pending:
    done: threading.Event = field(default_factory=threading.Event)
    answer: dict[str, Any] | None = None


@dataclass
class EventWaiter:
    """An event awaited: registered before the command that causes it, so it cannot be missed."""

    method: str
    session: str | None
    match: Callable[[dict[str, Any]], bool] | None
    done: threading.Event = field(default_factory=threading.Event)
    event: Event | None = None

    def wait(self, timeout: float) -> Event | None:
        """The event, or None when it did not come within `timeout` seconds."""
        self.done.wait(timeout)
        return self.event


class CDPConnection:
    """Commands to and events from one Chromium, over its debugging pipe."""

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._read_fd = read_fd
        self._write_fd = write_fd
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._next_id = 0
        self._pending: dict[int, _Pending] = {}
        self._waiters: list[EventWaiter] = []
        self._listeners: list[Callable[[Event], None]] = []
        self._closed = False
        self._reader = threading.Thread(target=self._read_loop, name="browser-cdp", daemon=True)
        self._reader.start()

    @property
    def closed(self) -> bool:
        """True once the pipe has ended (the browser exited) or `close()` was called."""
        return self._closed

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        """Send a command and return its `result`; raise `CDPError` with Chromium's message
        when it fails, or when no answer comes within `timeout` seconds."""
        with self._lock:
            if self._closed:
                raise BrowserClosedError("The browser is not running.")
            self._next_id += 1
            ident = self._next_id
            pending = self._pending[ident] = _Pending()
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        try:
            self._write(json.dumps(message).encode() + b"\0")
            if not pending.done.wait(timeout):
                raise CDPError(f"The browser did not answer {method} within {timeout:g} s.")
        finally:
            with self._lock:
                self._pending.pop(ident, None)
        answer = pending.answer
        if answer is None:
            raise BrowserClosedError(f"The browser exited during {method}.")
        if "error" in answer:
            error = answer["error"]
            raise CDPError(f"{method} failed: {error.get('message', error)}")
        return answer.get("result", {})

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None
    ) -> None:
        """Send a command without waiting for its answer (safe on the reader thread, e.g. to
        acknowledge a screencast frame from a listener). Errors are dropped."""
        with self._lock:
            if self._closed:
                return
            self._next_id += 1
            ident = self._next_id
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        with contextlib.suppress(BrowserClosedError):
            self._write(json.dumps(message).encode() + b"\0")

    def expect(
        self,
        method: str,
        *,
        session: str | None = None,
        match: Callable[[dict[str, Any]], bool] | None = None,
    ) -> EventWaiter:
        """Start waiting for the next `method` event (of `session`, whose params `match`)."""
        waiter = EventWaiter(method, session, match)
        with self._lock:
            if self._closed:
                waiter.done.set()
            else:
                self._waiters.append(waiter)
        return waiter

    def forget(self, waiter: EventWaiter) -> None:
        """Stop waiting (the event no longer matters)."""
        with self._lock, contextlib.suppress(ValueError):
            self._waiters.remove(waiter)

    def listen(self, listener: Callable[[Event], None]) -> Callable[[], None]:
        """Call `listener` with every event (on the reader thread: keep it short); returns
        the function that removes it."""
        with self._lock:
            self._listeners.append(listener)

        def remove() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return remove

    def close(self) -> None:
        """Close the pipe (the browser then exits on its own); wakes every waiting caller."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._close_write()
        self._wake_all()

    # -- internals -------------------------------------------------------------------------

    def _close_write(self) -> None:
        # Under the write lock, once: a closed number may soon name another file.
        with self._write_lock:
            fd, self._write_fd = self._write_fd, -1
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _write(self, data: bytes) -> None:
        with self._write_lock:
            if self._write_fd < 0:
                raise BrowserClosedError("The browser is not running.")
            view = memoryview(data)
            while view:
                try:
                    written = os.write(self._write_fd, view)
                except OSError as exc:
                    raise BrowserClosedError(f"The browser is not running ({exc}).") from exc
                view = view[written:]

    def _read_loop(self) -> None:
        buffer = b""
        try:
            while True:
                try:
                    chunk = os.read(self._read_fd, 1 << 16)
                except OSError:
                    break
                if not chunk:
                    break
                buffer += chunk
                *messages, buffer = buffer.split(b"\0")
                for raw in messages:
                    if raw:
                        self._dispatch(json.loads(raw))
        finally:
            with contextlib.suppress(OSError):
                os.close(self._read_fd)
            with self._lock:
                self._closed = True
            self._close_write()
            self._wake_all()

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "id" in message:
            with self._lock:
                pending = self._pending.get(message["id"])
            if pending is not None:
                pending.answer = message
                pending.done.set()
            return
        method = message.get("method")
        params = message.get("params") or {}
        session = message.get("sessionId")
        with self._lock:
            woken = [
                waiter
                for waiter in self._waiters
                if waiter.method == method
                and (waiter.session is None or waiter.session == session)
                and (waiter.match is None or waiter.match(params))
            ]
            for waiter in woken:
                self._waiters.remove(waiter)
            listeners = list(self._listeners)
        for waiter in woken:
            waiter.event = message
            waiter.done.set()
        for listener in listeners:
            with contextlib.suppress(Exception):  # a listener's bug must not stop the reader
                listener(message)

    def _wake_all(self) -> None:
        with self._lock:
            pending = list(self._pending.values())
            waiters, self._waiters = self._waiters, []
        for item in pending:
            item.done.set()
        for waiter in waiters:
            waiter.done.set()
