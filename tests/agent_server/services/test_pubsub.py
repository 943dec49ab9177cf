"""EventPubSub: subscribers follow the log from a cursor, whichever thread appends."""

from __future__ import annotations

import asyncio
import threading

import pytest
from openhands.agent_server.services.pubsub import EventPubSub, SubscriptionClosedError
from openhands.sdk.conversation import InMemoryEventLog
from openhands.sdk.event import Event, PauseEvent


async def _collect(pubsub: EventPubSub, start: int, count: int) -> list[Event]:
    subscription = pubsub.subscribe(start)
    received: list[Event] = []
    try:
        async for batch in subscription.batches():
            received += batch
            if len(received) >= count:
                return received
    finally:
        subscription.close()
    return received


async def test_events_appended_from_threads_arrive_once_in_log_order() -> None:
    log = InMemoryEventLog()
    pubsub = EventPubSub(log, asyncio.get_running_loop())
    lock = threading.Lock()

    def append_many() -> None:
        for _ in range(200):
            with lock:
                log.append(PauseEvent())
            pubsub.publish()

    reader = asyncio.create_task(_collect(pubsub, 0, 800))
    threads = [threading.Thread(target=append_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    received = await asyncio.wait_for(reader, timeout=30)
    for thread in threads:
        thread.join()
    assert [e.id for e in received] == [e.id for e in log.read(0, len(log))]


async def test_a_subscription_starts_at_its_cursor() -> None:
    log = InMemoryEventLog()
    for _ in range(5):
        log.append(PauseEvent())
    pubsub = EventPubSub(log, asyncio.get_running_loop())
    received = await asyncio.wait_for(_collect(pubsub, 3, 2), timeout=5)
    assert [e.id for e in received] == [e.id for e in log.read(3, 5)]


async def test_closing_the_publisher_ends_subscriptions() -> None:
    pubsub = EventPubSub(InMemoryEventLog(), asyncio.get_running_loop())
    reader = asyncio.create_task(_collect(pubsub, 0, 1))
    await asyncio.sleep(0)
    pubsub.close()
    with pytest.raises(SubscriptionClosedError):
        await asyncio.wait_for(reader, timeout=5)
