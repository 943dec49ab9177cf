"""The event loop's error reports, each kind logged at most once per interval.

When the process runs out of descriptors, asyncio reports every failed `accept()` ("socket.
accept() out of system resource") with a full traceback, retrying every second per
listening socket and for every connection attempt waiting in the backlog: megabytes of log
a minute, from a client that only opens connections. The handler installed here logs the
first report of each kind with its traceback, then counts the repeats and logs one summary
line per interval (`OH_REPEATED_ERROR_LOG_SECONDS`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

logger = logging.getLogger("openhands.agent_server.loop")


class ThrottledLoopErrors:
    """An asyncio exception handler that logs each kind of report once per `interval`."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self._clock = clock
        self._last: dict[str, float] = {}
        self._repeats: dict[str, int] = {}

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """Log `context` (as asyncio would) unless the same kind was logged recently."""
        kind = self._kind(context)
        now = self._clock()
        last = self._last.get(kind)
        if last is not None and now - last < self.interval:
            self._repeats[kind] = self._repeats.get(kind, 0) + 1
            return
        repeats = self._repeats.pop(kind, 0)
        self._last[kind] = now
        if repeats:
            logger.error(
                "%s (and %d more times in the last %.0f s; logged once per interval, "
                "OH_REPEATED_ERROR_LOG_SECONDS)",
                context.get("message", kind),
                repeats,
                now - last if last is not None else self.interval,
            )
            return
        loop.default_exception_handler(context)

    @staticmethod
    def _kind(context: dict[str, Any]) -> str:
        exception = context.get("exception")
        name = type(exception).__name__ if exception is not None else ""
        return f"{context.get('message', '')}|{name}|{getattr(exception, 'errno', '')}"
