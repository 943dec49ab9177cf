"""Bridges between a conversation's worker thread and an asyncio event loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any, Generic, TypeVar

__all__ = ["AsyncCallbackWrapper", "AsyncConversationCallback"]

logger = logging.getLogger(__name__)

E = TypeVar("E")

AsyncConversationCallback = Callable[[E], Coroutine[Any, Any, None]]
"""An `async def callback(event)`; `E` is the event type (a conversation's: `Event`). Generic,
so these helpers stay below the event layer."""


class AsyncCallbackWrapper(Generic[E]):
    """A plain conversation callback that runs an async callback on another thread's loop.

    Conversations call their callbacks in the thread that records the event, holding the
    conversation's lock; this wrapper only schedules `async_callback(event)` on `loop` (with
    `asyncio.run_coroutine_threadsafe`) and returns at once, so it never waits on the loop.
    Events that arrive while the loop is not running are dropped (there is nobody to run them).
    `wait_for_pending()` waits for the scheduled calls to finish.
    """

    def __init__(
        self, async_callback: AsyncConversationCallback[E], loop: asyncio.AbstractEventLoop
    ) -> None:
        self.async_callback = async_callback
        self.loop = loop
        self._pending: list[concurrent.futures.Future[None]] = []
        self._lock = threading.Lock()

    def __call__(self, event: E) -> None:
        if not self.loop.is_running():
            logger.debug(
                "event loop not running: %s not delivered to %r", type(event).__name__, self
            )
            return
        future = asyncio.run_coroutine_threadsafe(self.async_callback(event), self.loop)
        future.add_done_callback(_log_failure)
        with self._lock:
            # Forget finished calls as we go, so a long conversation does not pile them up.
            self._pending = [pending for pending in self._pending if not pending.done()]
            self._pending.append(future)

    def wait_for_pending(self, timeout: float | None = None) -> None:
        """Wait until every call scheduled so far has finished (None: no time limit).

        Raises `TimeoutError` if one is still running after `timeout` seconds. Must not be
        called from the loop's own thread (it would wait on itself).
        """
        with self._lock:
            pending = list(self._pending)
        done, not_done = concurrent.futures.wait(pending, timeout=timeout)
        del done
        if not_done:
            raise TimeoutError(f"{len(not_done)} async callbacks still running after {timeout}s")


def _log_failure(future: concurrent.futures.Future[None]) -> None:
    if future.cancelled():
        return
    error = future.exception()
    if error is not None:
        logger.error("async conversation callback failed", exc_info=error)
