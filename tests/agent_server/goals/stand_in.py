"""A conversation stand-in for goal driver tests: runs end at once (or when paused)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from openhands.agent_server.goals.host import RunResult
from openhands.sdk.conversation import ConversationExecutionStatus, InMemoryEventLog
from openhands.sdk.event import ConversationStateUpdateEvent, Event, MessageEvent
from openhands.sdk.llm import LLM, Message, TextContent
from openhands.sdk.testing import TestLLM

T = TypeVar("T")
Status = ConversationExecutionStatus


def judge(*answers: str) -> TestLLM:
    """A scripted judge answering `answers` in order."""
    return TestLLM.from_messages(
        [Message(role="assistant", content=[TextContent(text=a)]) for a in answers],
        usage_id="goal-judge",
    )


class Host:
    """A conversation stand-in: runs end at once (or when paused), events go to a list."""

    def __init__(self, *, wait_for_pause: bool = False) -> None:
        self.events = InMemoryEventLog()
        self.id = uuid.uuid4()
        self.working_dir = "."
        self.agent_llm: LLM = judge()
        self.is_busy = False
        self.wait_for_pause = wait_for_pause
        self.paused = asyncio.Event()
        self.fail_append_after: int | None = None
        self.blocking_error: Exception | None = None
        self.instant_runs = 0
        self.registered: list[LLM] = []
        self.runs = 0
        self.execution_status = Status.IDLE

    def agent_cost(self) -> float:
        return 0.0

    def ensure_open(self) -> None:
        return None

    async def settle(self) -> None:
        return None

    async def send_goal_message(self, text: str) -> None:
        await self.append_event(
            MessageEvent(
                source="user", llm_message=Message(role="user", content=[TextContent(text=text)])
            )
        )

    async def run_agent(self) -> RunResult:
        self.runs += 1
        if self.instant_runs:
            self.instant_runs -= 1
            return RunResult(status=Status.FINISHED)
        if self.wait_for_pause:
            await self.paused.wait()
            return RunResult(status=Status.PAUSED)
        return RunResult(status=Status.FINISHED)

    async def pause(self) -> None:
        self.request_pause()

    def register_llm(self, llm: LLM) -> None:
        self.registered.append(llm)

    def request_pause(self) -> None:
        self.paused.set()

    async def append_event(self, event: Event) -> None:
        if (
            self.fail_append_after is not None
            and len(self.goal_statuses()) >= self.fail_append_after
        ):
            raise OSError("disk full")
        self.events.append(event)

    async def blocking(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self.blocking_error is not None:
            raise self.blocking_error
        return fn(*args, **kwargs)

    def goal_statuses(self) -> list[dict[str, Any]]:
        return [
            e.value
            for e in self.events
            if isinstance(e, ConversationStateUpdateEvent) and e.key == "goal"
        ]
