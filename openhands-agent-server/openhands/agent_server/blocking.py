"""A thread pool for blocking work (agent runs, judge calls, disk I/O), off the event loop.

asyncio's default executor has only a handful of threads (cpu count + 4); a server running
a hundred goals at once needs one thread per running agent, so it gets its own pool.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class BlockingPool:
    """Runs blocking callables in threads and awaits them from the event loop."""

    def __init__(self, max_workers: int) -> None:
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=max_workers, thread_name_prefix="oh-blocking"
        )

    def submit(
        self, fn: Callable[..., T], *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        """Start `fn(*args, **kwargs)` in a thread and return its future."""
        return self._executor.submit(functools.partial(fn, *args, **kwargs))

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Await `fn(...)` run in a thread (cancelling the await abandons a queued call)."""
        return await asyncio.wrap_future(self.submit(fn, *args, **kwargs))

    async def run_to_completion(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Await `fn(...)` in a thread; if the await is cancelled, the call still finishes."""
        return await asyncio.shield(asyncio.wrap_future(self.submit(fn, *args, **kwargs)))

    def shutdown(self) -> None:
        """Stop accepting work; running calls finish in the background."""
        self._executor.shutdown(wait=False, cancel_futures=True)
