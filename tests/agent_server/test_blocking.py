"""BlockingPool: worker threads, their priority, and awaiting them from the event loop."""

from __future__ import annotations

import asyncio
import os
import sys
import threading

import pytest
from openhands.agent_server.blocking import BlockingPool


def _my_nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux only")
def test_worker_threads_run_at_a_lower_priority() -> None:
    pool = BlockingPool(1, nice=5)
    try:
        assert pool.submit(_my_nice).result(timeout=10) == min(19, _my_nice() + 5)
    finally:
        pool.shutdown()


async def test_run_returns_the_result_from_another_thread() -> None:
    pool = BlockingPool(2)
    try:
        caller = threading.get_ident()
        assert await pool.run(threading.get_ident) != caller
    finally:
        pool.shutdown()


async def test_run_to_completion_finishes_even_if_the_await_is_cancelled() -> None:
    pool = BlockingPool(2)
    started, release, finished = threading.Event(), threading.Event(), threading.Event()

    def slow() -> None:
        started.set()
        release.wait(10)
        finished.set()

    try:
        waiter = asyncio.create_task(pool.run_to_completion(slow))
        await asyncio.to_thread(started.wait, 10)
        waiter.cancel()
        release.set()
        await asyncio.to_thread(finished.wait, 10)
        assert finished.is_set()
    finally:
        pool.shutdown()
