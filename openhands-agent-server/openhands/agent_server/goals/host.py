"""`GoalHost`: the contract between the goal driver and the conversation it drives.

The driver depends only on this protocol (and the SDK's `GoalController`, which holds every
rule), so it can be tested against a stand-in. Each step of the SDK's step machine needs a few
of these operations (`steps.py`): send a message, run the agent and report how the run ended,
pause, read the status, run work in a thread, append a status event.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from openhands.sdk.conversation import ConversationExecutionStatus, EventLog
from openhands.sdk.conversation.goal import RunEnd
from openhands.sdk.event import Event
from openhands.sdk.llm import LLM

T = TypeVar("T")

RunResult = RunEnd
"""How one agent run ended (the SDK's `RunEnd`: status, and `error`/`code` if it failed)."""


class GoalHost(Protocol):
    """What a goal driver needs from a live conversation."""

    @property
    def id(self) -> uuid.UUID:
        """The conversation's id (a remote goal backend names it to its workers)."""
        ...

    @property
    def events(self) -> EventLog:
        """The conversation's event log (the judge reads it)."""
        ...

    @property
    def working_dir(self) -> str:
        """Where the `verify` command runs."""
        ...

    @property
    def agent_llm(self) -> LLM:
        """The agent's LLM (the default judge is a copy of it)."""
        ...

    @property
    def execution_status(self) -> ConversationExecutionStatus:
        """The conversation's status now (its log's latest)."""
        ...

    @property
    def is_busy(self) -> bool:
        """True while an agent run is in progress (or still winding down)."""
        ...

    def ensure_open(self) -> None:
        """Raise NotFoundError once the conversation is closing (no new goal may start)."""
        ...

    async def settle(self) -> None:
        """Wait for a run that has ended but whose thread is still returning."""
        ...

    def agent_cost(self) -> float:
        """USD the agent's LLM has spent so far in this conversation."""
        ...

    async def send_goal_message(self, text: str) -> None:
        """Append a user message on the goal's behalf (never treated as an interjection)."""
        ...

    async def run_agent(self) -> RunResult:
        """Run the agent until it stops; raises ConflictError if a run is in progress."""
        ...

    async def pause(self) -> None:
        """Ask the agent to stop after its current step (also a run about to start)."""
        ...

    def request_pause(self) -> None:
        """`pause` for any thread (e.g. the agent's own, when a budget runs out)."""
        ...

    def register_llm(self, llm: LLM) -> None:
        """Count `llm`'s usage (the judge's) in the conversation's stats, under its usage_id."""
        ...

    async def append_event(self, event: Event) -> None:
        """Persist and publish `event`; finishes even if the caller is cancelled."""
        ...

    async def blocking(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `fn` in a worker thread for long work (judge calls, verify commands)."""
        ...
