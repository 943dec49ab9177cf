"""The one event loop every MCP connection of this process runs on, in a daemon thread.

The `mcp` client is asynchronous and conversations are not: a conversation's thread hands a
coroutine to this loop and waits for it with a timeout, so it can never block for ever. One
loop for all conversations costs one thread, however many servers run. The thread is a
daemon, so a script that never closes its conversations still exits (its stdio servers are
killed at exit, see `client.py`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from openhands.sdk.errors import InvalidStateError

T = TypeVar("T")

THREAD_NAME = "openhands-mcp"

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None


def mcp_loop() -> asyncio.AbstractEventLoop:
    """The running MCP event loop, started on first use."""
    global _loop, _thread
    with _lock:
        if _loop is None or _thread is None or not _thread.is_alive():
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def run() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                loop.run_forever()

            thread = threading.Thread(target=run, name=THREAD_NAME, daemon=True)
            thread.start()
            ready.wait()
            _loop, _thread = loop, thread
        return _loop


def in_mcp_loop() -> bool:
    """True when called from the MCP loop's own thread (where waiting on it would deadlock)."""
    return _thread is not None and threading.current_thread() is _thread


def submit(coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
    """Schedule `coroutine` on the MCP loop; the future completes with its result."""
    if in_mcp_loop():
        coroutine.close()
        raise InvalidStateError("MCP calls cannot be made from the MCP event loop's own thread")
    return asyncio.run_coroutine_threadsafe(coroutine, mcp_loop())


def call_soon(callback: Any, *args: Any) -> None:
    """Run a plain callback on the MCP loop, if it runs (from any thread)."""
    loop = _loop
    if loop is not None and not loop.is_closed():
        with contextlib.suppress(RuntimeError):  # the loop closes at interpreter exit
            loop.call_soon_threadsafe(callback, *args)


def _forget_after_fork() -> None:
    # The thread does not exist in a forked child: start a fresh loop there on first use.
    global _loop, _thread, _lock
    _lock = threading.Lock()
    _loop = None
    _thread = None


os.register_at_fork(after_in_child=_forget_after_fork)
