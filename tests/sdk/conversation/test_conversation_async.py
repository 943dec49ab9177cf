"""`arun()` and `interrupt()`: an async run, and stopping a run in the middle of its step."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from openhands.sdk import (
    ActionEvent,
    Agent,
    ConversationExecutionStatus,
    LocalConversation,
    Message,
    ObservationEvent,
    Tool,
)
from openhands.sdk.event import InterruptEvent
from openhands.sdk.llm import LLMResponse
from openhands.sdk.testing import TestLLM
from pydantic import PrivateAttr

Status = ConversationExecutionStatus


class GatedLLM(TestLLM):
    """A TestLLM whose completions wait until the test opens `release` (at most 10 s)."""

    _started: threading.Event = PrivateAttr(default_factory=threading.Event)
    _release: threading.Event = PrivateAttr(default_factory=threading.Event)

    @property
    def started(self) -> threading.Event:
        """Set when a completion begins."""
        return self._started

    @property
    def release(self) -> threading.Event:
        """Set it to let completions answer."""
        return self._release

    def _complete(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, stream: bool
    ) -> LLMResponse:
        self._started.set()
        self._release.wait(10)
        return super()._complete(messages, tools, stream)


def test_arun_runs_the_conversation_to_its_end(make_conversation, reply) -> None:
    conversation, llm = make_conversation([reply.think("plan"), reply.text("done")])
    conversation.send_message("go")

    asyncio.run(conversation.arun())

    assert conversation.state.execution_status == Status.FINISHED
    assert len(llm.calls) == 2


def test_arun_keeps_the_event_loop_free(make_conversation, reply, gate) -> None:
    conversation, _ = make_conversation(
        [reply.call("gated", {"label": "x"}), reply.text("done")], tools=["gated"]
    )
    conversation.send_message("go")
    ticks: list[int] = []

    async def main() -> None:
        run = asyncio.create_task(conversation.arun())
        while not gate.started.is_set():
            ticks.append(1)  # the loop runs while the agent's tool call blocks
            await asyncio.sleep(0.01)
        gate.release.set()
        await run

    asyncio.run(main())

    assert ticks
    assert conversation.state.execution_status == Status.FINISHED


def test_interrupt_during_a_tool_call_keeps_its_result_and_runs_no_more(
    make_conversation, reply, gate
) -> None:
    conversation, llm = make_conversation(
        [reply.calls(("gated", {"label": "one"}), ("gated", {"label": "two"})), reply.text("x")],
        tools=["gated"],
    )
    conversation.send_message("go")

    async def main() -> None:
        run = asyncio.create_task(conversation.arun())
        await asyncio.to_thread(gate.started.wait, 10)
        conversation.interrupt()
        gate.release.set()
        await run

    asyncio.run(main())

    events = list(conversation.state.events)
    assert conversation.state.execution_status == Status.PAUSED
    assert len([e for e in events if isinstance(e, ActionEvent)]) == 2
    results = [e for e in events if isinstance(e, ObservationEvent)]
    assert [e.text for e in results] == ["passed one"]  # the second call never ran
    assert any(isinstance(e, InterruptEvent) for e in events)
    assert len(llm.calls) == 1


def test_interrupt_during_the_llm_call_drops_its_reply(workspace_dir, reply) -> None:
    llm = GatedLLM.from_messages([reply.call("echo", {"text": "never"})])
    assert isinstance(llm, GatedLLM)
    conversation = LocalConversation(Agent(llm=llm, tools=[Tool(name="echo")]), workspace_dir)
    try:
        conversation.send_message("go")
        runner = threading.Thread(target=conversation.run)
        runner.start()
        assert llm.started.wait(10)
        conversation.interrupt()
        llm.release.set()
        runner.join(10)

        events = list(conversation.state.events)
        assert conversation.state.execution_status == Status.PAUSED
        assert not any(isinstance(e, ActionEvent) for e in events)
        assert any(isinstance(e, InterruptEvent) for e in events)
    finally:
        llm.release.set()
        conversation.close()


def test_an_interrupted_conversation_runs_again(make_conversation, reply, gate) -> None:
    conversation, _ = make_conversation(
        [reply.call("gated", {"label": "one"}), reply.text("done")], tools=["gated"]
    )
    conversation.send_message("go")
    runner = threading.Thread(target=conversation.run)
    runner.start()
    assert gate.started.wait(10)
    conversation.interrupt()
    gate.release.set()
    runner.join(10)
    assert conversation.state.execution_status == Status.PAUSED

    conversation.run()

    assert conversation.state.execution_status == Status.FINISHED


def test_interrupt_without_a_run_pauses(make_conversation) -> None:
    conversation, _ = make_conversation()

    conversation.interrupt()

    assert conversation.state.execution_status == Status.PAUSED
    assert not any(isinstance(e, InterruptEvent) for e in conversation.state.events)


def test_cancelling_arun_interrupts_the_run(make_conversation, reply, gate) -> None:
    conversation, _ = make_conversation(
        [reply.call("gated", {"label": "one"}), reply.text("done")], tools=["gated"]
    )
    conversation.send_message("go")

    async def main() -> None:
        run = asyncio.create_task(conversation.arun())
        await asyncio.to_thread(gate.started.wait, 10)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        gate.release.set()

    asyncio.run(main())  # asyncio.run waits for the worker thread to end

    assert conversation.state.execution_status == Status.PAUSED
    assert any(isinstance(e, InterruptEvent) for e in conversation.state.events)
