"""`AsyncCallbackWrapper`: an async callback run on a loop from a conversation's thread."""

from __future__ import annotations

import asyncio
import threading

import pytest
from openhands.sdk import Agent, Conversation, Event, MessageEvent
from openhands.sdk.conversation.types import ConversationCallbackType
from openhands.sdk.llm import text_message
from openhands.sdk.testing import TestLLM
from openhands.sdk.utils.async_utils import AsyncCallbackWrapper


def test_events_from_a_worker_thread_reach_the_async_callback_on_its_loop(
    workspace_dir, reply
) -> None:
    seen: list[tuple[str, bool]] = []

    async def on_event(event: Event) -> None:
        seen.append((event.kind, threading.current_thread() is threading.main_thread()))

    def work(callback: ConversationCallbackType) -> None:
        conversation = Conversation(
            Agent(llm=TestLLM.from_messages([reply.text("hi")])),
            workspace=workspace_dir,
            callbacks=[callback],
        )
        conversation.send_message("hello")
        conversation.run()
        conversation.close()

    async def main() -> None:
        wrapper = AsyncCallbackWrapper(on_event, asyncio.get_running_loop())
        await asyncio.get_running_loop().run_in_executor(None, work, wrapper)
        await asyncio.to_thread(wrapper.wait_for_pending, 10)

    asyncio.run(main())

    assert ("MessageEvent", True) in seen
    assert all(on_main for _, on_main in seen)  # every call ran on the loop's thread


def test_events_are_dropped_when_the_loop_is_not_running() -> None:
    calls: list[Event] = []

    async def on_event(event: Event) -> None:
        calls.append(event)

    loop = asyncio.new_event_loop()
    try:
        wrapper = AsyncCallbackWrapper(on_event, loop)
        wrapper(MessageEvent(source="user", llm_message=text_message("user", "x")))
        wrapper.wait_for_pending(1)
    finally:
        loop.close()

    assert calls == []


def test_waiting_for_a_slow_callback_times_out() -> None:
    release = threading.Event()

    async def slow(event: Event) -> None:
        await asyncio.to_thread(release.wait, 10)

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        wrapper = AsyncCallbackWrapper(slow, loop)
        while not loop.is_running():
            pass
        wrapper(MessageEvent(source="user", llm_message=text_message("user", "x")))
        with pytest.raises(TimeoutError, match="still running"):
            wrapper.wait_for_pending(0.05)
        release.set()
        wrapper.wait_for_pending(10)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
