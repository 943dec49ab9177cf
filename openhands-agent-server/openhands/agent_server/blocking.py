"""Thread pools for blocking work, off the event loop: `BlockingPool`, and the server's `Pools`.

asyncio's default executor has only a handful of threads (cpu count + 4); a server running
a hundred goals at once needs one thread per running agent, so it gets its own pools:

- `runs` (OH_MAX_RUN_THREADS): agent runs, judge calls and verify commands, which may take
  minutes. Its threads run at a lower OS priority (Linux `nice`, per thread): when agent work
  saturates the CPU (litellm spends tens of ms of CPU per call), the event loop thread is
  still scheduled first, so REST and WebSocket answers stay fast.
- `controls` (OH_CONTROL_THREADS): short blocking work that a request waits for: appending an
  event (a message, a pause, a goal status), opening, creating, closing and deleting a
  conversation. It is separate so that a control never queues behind agent runs, whatever
  the run pool holds. Its threads get the same lower priority: only the event loop's thread
  keeps the normal one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

logger = logging.getLogger(__name__)


class BlockingPool:
    """Runs blocking callables in threads and awaits them from the event loop."""

    def __init__(self, max_workers: int, *, nice: int = 0, name: str = "oh-blocking") -> None:
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=max_workers,
            thread_name_prefix=name,
            initializer=_lower_priority,
            initargs=(nice,),
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


@dataclass(frozen=True)
class Pools:
    """The server's two pools: long agent work, and the short work controls wait for."""

    runs: BlockingPool
    """Agent runs, judge calls, verify commands (OH_MAX_RUN_THREADS, lower priority)."""
    controls: BlockingPool
    """Appends, pause, open, create, close, delete (OH_CONTROL_THREADS, lower priority)."""

    @classmethod
    def create(cls, run_threads: int, control_threads: int, *, nice: int = 0) -> Pools:
        """Both pools, their threads `nice` steps below the event loop's priority."""
        return cls(
            runs=BlockingPool(run_threads, nice=nice, name="oh-run"),
            controls=BlockingPool(control_threads, nice=nice, name="oh-control"),
        )

    def shutdown(self) -> None:
        """Stop accepting work in both pools; running calls finish in the background."""
        self.runs.shutdown()
        self.controls.shutdown()


def _lower_priority(nice: int) -> None:
    """Give the calling worker thread a `nice` increment (Linux only; best effort)."""
    if nice <= 0 or not sys.platform.startswith("linux"):
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
    except OSError as exc:
        logger.debug("could not lower the worker thread's priority: %s", exc)
