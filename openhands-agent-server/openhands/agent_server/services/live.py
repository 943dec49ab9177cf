"""`EventService`: one live conversation on the server, with its pub/sub and goal driver.

It owns the `LocalConversation`, runs the agent in a worker thread, wakes WebSocket
subscribers when the event log grows and hosts the conversation's goal driver.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.conversations.models import ConversationInfo
from openhands.agent_server.errors import BadRequestError, ConflictError, NotFoundError
from openhands.agent_server.events.models import EventSortOrder
from openhands.agent_server.events.pubsub import EventPubSub
from openhands.agent_server.goals.driver import GoalDriver
from openhands.agent_server.goals.host import RunResult
from openhands.sdk.conversation import (
    ConversationClosedError,
    ConversationExecutionStatus,
    ConversationRunError,
    EventLog,
    LocalConversation,
    UserPromptBlockedError,
)
from openhands.sdk.conversation.event_log import EventLogClosedError
from openhands.sdk.event import ConversationStateUpdateEvent, Event
from openhands.sdk.llm import LLM, Message
from openhands.sdk.llm.metrics import Metrics

logger = logging.getLogger(__name__)

T = TypeVar("T")
Status = ConversationExecutionStatus

SETTLE_SECONDS = 5.0
"""How long to wait for a finished run's thread to return before calling the run busy."""

CLOSE_WAIT_SECONDS = 30.0
"""How long closing a conversation waits for a paused agent to finish its current step."""


class EventService:
    """A live conversation: its agent runs, its events and its goal loop."""

    def __init__(
        self, conversation: LocalConversation, pool: BlockingPool, loop: asyncio.AbstractEventLoop
    ) -> None:
        self.conversation = conversation
        self.pubsub = EventPubSub(conversation.state.events, loop)
        self._pool = pool
        self._run_future: concurrent.futures.Future[RunResult] | None = None
        # Set while a pause must also catch a run that has not reached its first step yet.
        self._repause = False
        # Whether the submitted run has published `running`: before that it is queued (busy),
        # after it with `is_running` False it has ended and its thread is only returning.
        self._run_started = False
        self._closed = False
        self.goal = GoalDriver(self)
        conversation.add_callback(self._on_event)

    # -- identity and state ---------------------------------------------------------------

    @property
    def id(self) -> uuid.UUID:
        """The conversation id."""
        return self.conversation.id

    @property
    def events(self) -> EventLog:
        """The conversation's event log."""
        return self.conversation.state.events

    @property
    def working_dir(self) -> str:
        """The agent's working directory."""
        return self.conversation.workspace.working_dir

    @property
    def agent_llm(self) -> LLM:
        """The agent's LLM."""
        return self.conversation.agent.llm

    @property
    def is_busy(self) -> bool:
        """True while a run is scheduled, running, or still finishing its last step."""
        future = self._run_future
        return self.conversation.is_running or (future is not None and not future.done())

    def ensure_open(self) -> None:
        """NotFoundError once the conversation is closing (deleted, or the server stops)."""
        if self._closed:
            raise NotFoundError(_closed_message(self.id))

    def agent_cost(self) -> float:
        """USD the agent's LLM has spent so far."""
        return self.conversation.agent.llm.metrics.accumulated_cost

    def info(self) -> ConversationInfo:
        """The conversation as clients see it (secrets redacted)."""
        state = self.conversation.state
        status = self.goal.status
        return ConversationInfo(
            id=state.id,
            agent=state.agent.model_dump(mode="json"),
            workspace=state.workspace,
            execution_status=state.execution_status,
            title=state.title,
            created_at=state.created_at,
            updated_at=state.updated_at,
            metrics=self._metrics(),
            goal=status.model_dump(mode="json") if status is not None else None,
        )

    def _metrics(self) -> dict[str, Metrics]:
        state = self.conversation.state
        metrics = dict(state.metrics)
        for llm in (state.agent.llm, self.goal.judge_llm):
            if llm is not None:
                metrics[llm.usage_id] = llm.metrics.model_copy()
        return metrics

    # -- events -----------------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        """Called in whichever thread appended `event` (after it is on disk)."""
        if (
            isinstance(event, ConversationStateUpdateEvent)
            and event.key == "execution_status"
            and event.value == Status.RUNNING.value
        ):
            self._run_started = True
            if self._repause:
                # run() clears pause requests when it starts; re-assert one made just before.
                self.conversation.pause()
        self.goal.on_event(event)
        self.pubsub.publish()

    def get_event(self, event_id: str) -> Event:
        """The event with `event_id`, or NotFoundError."""
        event = self._index(event_id)
        return self.events.read(event, event + 1)[0]

    def _index(self, event_id: str) -> int:
        index_of: Callable[[str], int | None] | None = getattr(self.events, "index_of", None)
        index = index_of(event_id) if index_of is not None else None
        if index is None:
            raise NotFoundError(f"Event {event_id} is not in conversation {self.id}.")
        return index

    def count_events(self, *, kind: str | None = None, source: str | None = None) -> int:
        """How many events match the filters."""
        if kind is None and source is None:
            return len(self.events)
        return sum(1 for event in self.events if _matches(event, kind, source))

    def search_events(
        self,
        *,
        page_id: str | None,
        limit: int,
        kind: str | None,
        source: str | None,
        sort_order: EventSortOrder,
    ) -> tuple[list[Event], str | None]:
        """One page of matching events and the id that starts the next page (or None)."""
        log = self.events
        total = len(log)
        descending = sort_order == EventSortOrder.TIMESTAMP_DESC
        if page_id:
            try:
                position = self._index(page_id)
            except NotFoundError as exc:
                raise BadRequestError(
                    f"page_id {page_id!r} is not an event of conversation {self.id}; pass the "
                    "next_page_id of a previous page, or omit it for the first page."
                ) from exc
        else:
            position = total - 1 if descending else 0
        step = -1 if descending else 1
        items: list[Event] = []
        chunk = max(limit + 1, 64)
        while 0 <= position < total:
            if descending:
                batch = log.read(max(0, position - chunk + 1), position + 1)[::-1]
            else:
                batch = log.read(position, min(total, position + chunk))
            for event in batch:
                position += step
                if not _matches(event, kind, source):
                    continue
                if len(items) == limit:
                    return items, event.id
                items.append(event)
        return items, None

    # -- runs -------------------------------------------------------------------------------

    async def settle(self) -> None:
        """Wait for a run that has ended but whose thread is still returning (a moment)."""
        future = self._run_future
        ended = self._run_started and not self.conversation.is_running
        if future is not None and not future.done() and ended:
            await asyncio.wait({asyncio.wrap_future(future)}, timeout=SETTLE_SECONDS)

    async def start_run(self) -> None:
        """Start a run in the background; ConflictError if a run or a goal is in progress."""
        await self.settle()
        if self.goal.active:
            raise ConflictError(
                f"A goal is driving conversation {self.id}; stop it (POST /goal/stop) first."
            )
        self._submit_run()

    def _submit_run(self) -> concurrent.futures.Future[RunResult]:
        self.ensure_open()
        if self.is_busy:
            raise ConflictError(
                f"Conversation {self.id} is already running; pause it or wait for it to finish."
            )
        self._run_started = False
        future = self._pool.submit(self._run_blocking)
        self._run_future = future
        return future

    async def run_agent(self) -> RunResult:
        """Run the agent (in a worker thread) and return how the run ended."""
        return await asyncio.wrap_future(self._submit_run())

    def _run_blocking(self) -> RunResult:
        try:
            self.conversation.run()
            return RunResult(status=self.conversation.state.execution_status)
        except ConversationRunError as exc:
            return RunResult(status=Status.ERROR, error=f"{exc.code}: {exc.detail}", code=exc.code)
        except Exception as exc:  # a bug or a closed conversation: report, never lose it
            logger.exception("conversation %s: run failed", self.id)
            return RunResult(
                status=self.conversation.state.execution_status,
                error=f"{type(exc).__name__}: {exc}",
                code=type(exc).__name__,
            )
        finally:
            self._repause = False

    async def pause(self) -> None:
        """Ask the agent to stop after its current step (a run about to start stops too)."""
        await self.pause_agent()

    async def pause_agent(self) -> None:
        """See `pause`."""
        await self._pool.run_to_completion(self.request_pause)

    def request_pause(self) -> None:
        """`pause` for any thread."""
        if self.is_busy:
            self._repause = True
        self.conversation.pause()

    # -- messages ---------------------------------------------------------------------------

    async def send_message(self, message: Message, *, run: bool = False) -> None:
        """Append a user message; it interrupts an active goal first (DESIGN section 6)."""
        self.ensure_open()
        if self.goal.active:
            await self.goal.interrupt("user message")
        await self._send(message)
        await self.settle()
        if run and not self.is_busy:
            self._submit_run()

    async def send_goal_message(self, text: str) -> None:
        """Append a message on the goal driver's behalf."""
        await self._send(text)

    async def _send(self, message: str | Message) -> None:
        try:
            await self._pool.run_to_completion(self.conversation.send_message, message)
        except UserPromptBlockedError as exc:
            raise BadRequestError(str(exc)) from exc
        except (ConversationClosedError, EventLogClosedError) as exc:
            # Deleted while this message waited for its thread (close() came in between).
            raise NotFoundError(_closed_message(self.id)) from exc

    async def append_event(self, event: Event) -> None:
        """Persist and publish `event` in a worker thread; finishes even if cancelled."""
        await self._pool.run_to_completion(self.conversation.append_event, event)

    async def blocking(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `fn` in a worker thread."""
        return await self._pool.run(fn, *args, **kwargs)

    # -- goals (the driver lives in goals/driver.py) ----------------------------------------

    async def start_goal_loop(self, objective: str, **options: Any) -> None:
        """Start a goal loop; see `GoalDriver.start` for the options."""
        await self.goal.start(objective, **options)

    async def stop_goal_loop(self) -> None:
        """Stop the goal loop and pause the agent."""
        await self.goal.stop()

    async def resume_goal_loop(self, *, judge_llm: LLM | None = None) -> None:
        """Resume an interrupted goal from its last status."""
        await self.goal.resume(judge_llm=judge_llm)

    @property
    def _goal_loop_task(self) -> asyncio.Task[None] | None:
        return self.goal.task

    @property
    def _goal_loop_outcome(self) -> Any:
        return self.goal.outcome

    # -- life cycle -------------------------------------------------------------------------

    async def close(
        self, reason: str, *, run_wait: float = CLOSE_WAIT_SECONDS, leave_running: bool = False
    ) -> bool:
        """Interrupt the goal, pause the agent, wait for its step to end, release files.

        A step still running after `run_wait` seconds is waited for again by the SDK's
        close, unless `leave_running` (server shutdown): then the conversation is left as it
        is (everything acknowledged is on disk) and this returns False.
        """
        # First, so that no run, goal or message starts while the conversation closes.
        self._closed = True
        if self.goal.active:
            await self.goal.interrupt(reason)
        future = self._run_future
        if self.is_busy:
            await self.pause_agent()
            if future is not None:
                done, _ = await asyncio.wait({asyncio.wrap_future(future)}, timeout=run_wait)
                if not done:
                    logger.warning("conversation %s: the agent did not pause in time", self.id)
                    if leave_running:
                        self.pubsub.close()
                        return False
        self.pubsub.close()
        await self._pool.run_to_completion(self.conversation.close)
        return True


def _closed_message(conversation_id: uuid.UUID) -> str:
    return (
        f"Conversation {conversation_id} does not exist any more (it was deleted, or the "
        "server is shutting down)."
    )


def _matches(event: Event, kind: str | None, source: str | None) -> bool:
    return (kind is None or event.kind == kind) and (source is None or event.source == source)
