"""`LiveConversation`: one conversation open on the server (the design's `EventService`).

It owns the SDK's `LocalConversation` while it is open: agent runs (in the run pool), pause,
messages and appends (in the control pool, so they never wait behind runs), the pub/sub that
wakes its WebSockets, and the goal driver it hosts (it is the driver's `GoalHost`). Reading
its events for clients is `event_queries.py`; which conversations are open is the registry's.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from openhands.agent_server.blocking import Pools
from openhands.agent_server.errors import (
    BadRequestError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
)
from openhands.agent_server.goals.backend import GoalBackend
from openhands.agent_server.goals.driver import GoalDriver
from openhands.agent_server.goals.host import RunResult
from openhands.agent_server.services import event_queries
from openhands.agent_server.services.checkpoints import WorkspaceCheckpoints
from openhands.agent_server.services.event_queries import EventSortOrder
from openhands.agent_server.services.pubsub import EventPubSub
from openhands.sdk.conversation import (
    ConversationClosedError,
    ConversationExecutionStatus,
    ConversationRunError,
    EventLog,
    LocalConversation,
    UserPromptBlockedError,
)
from openhands.sdk.conversation.event_log import EventLogClosedError
from openhands.sdk.conversation.goal import (
    GOAL_SENDER,
    GoalLimitsChange,
    GoalOutcome,
    GoalRequest,
    InvalidGoalError,
)
from openhands.sdk.conversation.goal.models import USER_MESSAGE
from openhands.sdk.errors import StorageError
from openhands.sdk.event import ConversationStateUpdateEvent, Event
from openhands.sdk.llm import LLM, Message
from openhands.sdk.security.analyzer import SecurityAnalyzerBase
from openhands.sdk.security.approval_rules import AllowRule, unique_rules
from openhands.sdk.security.confirmation_policy import ConfirmationPolicyBase
from openhands.sdk.wire import ConversationInfo
from openhands.sdk.workspace.checkpoints import Checkpoint

logger = logging.getLogger(__name__)

T = TypeVar("T")
Status = ConversationExecutionStatus

SETTLE_SECONDS = 5.0
"""How long to wait for a finished run's thread to return before calling the run busy."""

RUN_ANSWER_GRACE_SECONDS = 5.0
"""How long a run started by POST /run waits for that request's answer to be sent."""

CLOSE_WAIT_SECONDS = 30.0
"""How long closing a conversation waits for a paused agent to finish its current step."""


class LiveConversation:
    """An open conversation: its agent runs, its events, its sockets and its goal loop."""

    def __init__(
        self,
        conversation: LocalConversation,
        pools: Pools,
        loop: asyncio.AbstractEventLoop,
        *,
        check_keys: Callable[[], None] | None = None,
        goal_backend: GoalBackend | None = None,
    ) -> None:
        """`goal_backend` is the server's (None: goals run on the built-in driver)."""
        self.conversation = conversation
        # Raises (a 4xx) when the agent cannot get its keys, e.g. sealed with a lost key.
        self._check_keys = check_keys or _no_check
        self.pubsub = EventPubSub(conversation.state.events, loop)
        self._runs = pools.runs
        self._controls = pools.controls
        self._run_future: concurrent.futures.Future[RunResult] | None = None
        # Set while a pause must also catch a run that has not reached its first step yet.
        self._repause = False
        # Whether the submitted run has published `running`: before that it is queued (busy),
        # after it with `is_running` False it has ended and its thread is only returning.
        self._run_started = False
        self._closed = False
        # Deleted: its folder is gone, so a write that raced the deletion is not acknowledged.
        self._deleted = False
        self.goal = GoalDriver(self, goal_backend)
        self.checkpoints = WorkspaceCheckpoints(self)
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
    def execution_status(self) -> Status:
        """The conversation's status now."""
        return self.conversation.state.execution_status

    @property
    def is_busy(self) -> bool:
        """True while a run is scheduled, running, or still finishing its last step."""
        future = self._run_future
        return self.conversation.is_running or (future is not None and not future.done())

    @property
    def closed(self) -> bool:
        """True once the conversation is closing (deleted, or the server stops)."""
        return self._closed

    def ensure_open(self) -> None:
        """NotFoundError once the conversation is closing (deleted, or the server stops)."""
        if self._closed:
            raise NotFoundError(_closed_message(self.id))

    def agent_cost(self) -> float:
        """USD the agent's LLM has spent so far."""
        return self.conversation.agent.llm.metrics.accumulated_cost

    def register_llm(self, llm: LLM) -> None:
        """Count `llm`'s usage (a goal judge's) in the conversation's stats, persisted with it.

        An LLM under the agent's own usage_id is not registered: it would hide the agent's.
        Called while no run is in progress (the state lock guards against a late one).
        """
        conversation = self.conversation
        if llm.usage_id == conversation.agent.llm.usage_id:
            return
        with conversation.state.lock:
            conversation.conversation_stats.register_llm(llm)

    def info(self) -> ConversationInfo:
        """The conversation as clients see it (secrets redacted)."""
        state = self.conversation.state
        return ConversationInfo(
            id=state.id,
            agent=state.agent,
            workspace=state.workspace,
            execution_status=state.execution_status,
            title=state.title,
            created_at=state.created_at,
            updated_at=state.updated_at,
            metrics={usage: m.model_copy() for usage, m in list(state.metrics.items())},
            goal=self.goal.status,
            confirmation_policy=state.confirmation_policy,
            security_analyzer=state.security_analyzer,
            max_iterations=state.max_iterations,
            stuck_detection=state.stuck_detection,
            hook_config=state.hook_config,
            persistence_dir=state.persistence_dir,
            tags=dict(state.tags),
            approval_rules=list(state.approval_rules),
            parent_conversation_id=state.parent_conversation_id,
        )

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
        return event_queries.get_event(self.events, event_id, self.id)

    def count_events(self, *, kind: str | None = None, source: str | None = None) -> int:
        """How many events match the filters."""
        return event_queries.count_events(self.events, kind=kind, source=source)

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
        return event_queries.search_events(
            self.events,
            self.id,
            page_id=page_id,
            limit=limit,
            kind=kind,
            source=source,
            sort_order=sort_order,
        )

    # -- runs -------------------------------------------------------------------------------

    async def settle(self) -> None:
        """Wait for a run that has ended but whose thread is still returning (a moment)."""
        future = self._run_future
        ended = self._run_started and not self.conversation.is_running
        if future is not None and not future.done() and ended:
            await asyncio.wait({asyncio.wrap_future(future)}, timeout=SETTLE_SECONDS)

    async def start_run(self, *, answered: threading.Event | None = None) -> None:
        """Start a run in the background; ConflictError if a run or a goal is in progress.

        With `answered`, the run is claimed now (a second start is a conflict) but the agent
        begins only once the event is set, i.e. once the caller's answer has been sent.
        """
        await self.settle()
        if self.goal.active:
            raise ConflictError(
                f"A goal is driving conversation {self.id}; stop it (POST /goal/stop) first."
            )
        self._check_keys()
        self._submit_run(answered)

    def _submit_run(
        self, answered: threading.Event | None = None
    ) -> concurrent.futures.Future[RunResult]:
        self.ensure_open()
        if self.is_busy:
            raise ConflictError(
                f"Conversation {self.id} is already running; pause it or wait for it to finish."
            )
        self._run_started = False
        future = self._runs.submit(self._run_blocking, answered)
        self._run_future = future
        return future

    def remind_run_ended(self) -> None:
        """Send the sockets a `full_state` frame again if no run is in progress.

        The reference's client takes a `full_state` frame that comes after its POST /run was
        answered as the end of that run, and polls GET /{id} until one comes. A quick run can
        end before the answer reaches it; its poll then gets the frame it missed. Never while
        a run is claimed, so it cannot end the wait for a run that has not begun.
        """
        if self.between_runs:
            self.pubsub.want_state()
            return
        future = self._run_future
        if self.execution_status != Status.RUNNING and future is not None and not future.done():
            # The run has ended but its thread is still returning: send the frame once it
            # has (a poll in that moment would otherwise get nothing).
            loop = asyncio.get_running_loop()
            future.add_done_callback(
                lambda _done: loop.call_soon_threadsafe(self.pubsub.want_state)
            )

    @property
    def between_runs(self) -> bool:
        """True when no run is claimed, running or still returning."""
        return not self.is_busy and self.execution_status != Status.RUNNING

    def current_run(self) -> concurrent.futures.Future[RunResult] | None:
        """The run in progress, or the last one (None before the first): for callers that
        wait for the run their message started to end."""
        return self._run_future

    async def run_agent(self) -> RunResult:
        """Run the agent (in a run thread) and return how the run ended."""
        return await asyncio.wrap_future(self._submit_run())

    def _run_blocking(self, answered: threading.Event | None = None) -> RunResult:
        if answered is not None:
            # The reference's client arms its wait for the run's final snapshot only once
            # POST /run has answered; a fast run that ended before would leave it waiting
            # forever. Bounded, in case the answer is never sent (the client went away).
            answered.wait(RUN_ANSWER_GRACE_SECONDS)
        try:
            self.conversation.run()
            state = self.conversation.state  # the step cap ends `error` without raising
            return RunResult.after_run(state.execution_status, state.events)
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
        await self._controls.run_to_completion(self.request_pause)

    def request_pause(self) -> None:
        """`pause` for any thread (the agent's own, when a goal's budget runs out)."""
        if self.is_busy:
            self._repause = True
        self.conversation.pause()

    # -- human approval ---------------------------------------------------------------------

    async def respond_to_confirmation(self, accept: bool, reason: str) -> None:
        """Approve or reject the tool calls that wait; ConflictError when none waits.

        An approval runs them: a goal driving the conversation runs the agent (the goal waits
        for this answer), otherwise a run starts here. A rejection only records it, as the
        reference server does; the goal (or the client's next run) lets the agent go on.
        """
        self.ensure_open()
        await self.settle()
        conversation = self.conversation
        if conversation.state.execution_status != Status.WAITING_FOR_CONFIRMATION:
            raise ConflictError(
                f"No tool call of conversation {self.id} waits for approval (its status is "
                f"{conversation.state.execution_status.value})."
            )
        if accept:
            self._check_keys()
            await self._controls.run_to_completion(conversation.approve_pending_actions)
        else:
            await self._controls.run_to_completion(conversation.reject_pending_actions, reason)
        if accept and not self.goal.active and not self.is_busy:
            self._submit_run()

    # -- client tools -----------------------------------------------------------------------

    async def respond_to_client_tool(
        self, tool_call_id: str, content: str, *, is_error: bool = False, run: bool = True
    ) -> None:
        """Record the client's answer to a waiting client tool call; with `run`, the agent
        goes on (unless a goal drives it, which runs it itself). ConflictError while a run
        is going; NotFoundError when no call of that id waits."""
        self.ensure_open()
        await self.settle()
        if self.is_busy:
            raise ConflictError(f"Conversation {self.id} is running; answer once it has paused.")
        try:
            await self._controls.run_to_completion(
                self.conversation.respond_to_client_tool, tool_call_id, content, is_error=is_error
            )
        except ValueError as exc:
            raise NotFoundError(str(exc)) from exc
        if run and not self.goal.active and not self.is_busy:
            self._check_keys()
            self._submit_run()

    async def set_confirmation_policy(self, policy: ConfirmationPolicyBase) -> None:
        """Choose which tool calls wait for approval (saved with the conversation)."""
        self.ensure_open()
        await self._controls.run_to_completion(self.conversation.set_confirmation_policy, policy)

    async def add_approval_rule(self, rule: AllowRule, *, limit: int) -> None:
        """Let calls `rule` matches run without asking (saved with the conversation).

        A rule that would make more than `limit` is an `InvalidRequestError` (422).
        """
        self.ensure_open()

        def add() -> None:
            conversation = self.conversation
            with conversation.state.lock:
                rules = conversation.approval_rules
                if rule not in rules and len(rules) >= limit:
                    raise InvalidRequestError(_too_many_rules(limit), ("body",))
                conversation.add_approval_rule(rule)

        await self._controls.run_to_completion(add)

    async def set_approval_rules(self, rules: list[AllowRule], *, limit: int) -> None:
        """Replace the conversation's standing approvals (each kept once), saved once.

        More than `limit` different rules is an `InvalidRequestError` (422).
        """
        self.ensure_open()
        kept = unique_rules(rules)
        if len(kept) > limit:
            raise InvalidRequestError(_too_many_rules(limit, len(kept)), ("body", "rules"))
        await self._controls.run_to_completion(self.conversation.set_approval_rules, kept)

    async def set_security_analyzer(self, analyzer: SecurityAnalyzerBase | None) -> None:
        """Choose what rates each call's risk (saved with the conversation)."""
        self.ensure_open()
        await self._controls.run_to_completion(self.conversation.set_security_analyzer, analyzer)

    # -- messages ---------------------------------------------------------------------------

    async def send_message(
        self, message: Message, *, run: bool = False, sender: str | None = None
    ) -> None:
        """Append a user message; it interrupts an active goal first, then it is appended.

        With `run`, nothing is appended if the agent cannot get its keys (`SealedKeysError`).
        """
        self.ensure_open()
        if run:
            self._check_keys()
        if self.goal.active:
            await self.goal.interrupt(USER_MESSAGE)
        await self._send(message, sender)
        await self.settle()
        if run and not self.is_busy:
            self._submit_run()

    async def take_goal_checkpoint(self, label: str, goal_round: int | None) -> Checkpoint:
        """Snapshot the workspace for the goal (a `CheckpointError` when none is taken)."""
        return await self.checkpoints.take_for_goal(label, goal_round)

    async def send_goal_message(self, text: str) -> None:
        """Append a message on the goal driver's behalf (its sender is the goal loop)."""
        await self._send(text, GOAL_SENDER)

    async def _send(self, message: str | Message, sender: str | None = None) -> None:
        try:
            await self._controls.run_to_completion(self.conversation.send_message, message, sender)
        except UserPromptBlockedError as exc:
            raise BadRequestError(str(exc)) from exc
        except (ConversationClosedError, EventLogClosedError) as exc:
            # Deleted while this message waited for its thread (close() came in between).
            raise NotFoundError(_closed_message(self.id)) from exc
        except StorageError as exc:
            if self._deleted:  # its folder went away under it
                raise NotFoundError(_closed_message(self.id)) from exc
            raise
        if self._deleted:
            raise NotFoundError(_closed_message(self.id))

    async def append_event(self, event: Event) -> None:
        """Persist and publish `event` in a control thread; finishes even if cancelled."""
        await self._controls.run_to_completion(self.conversation.append_event, event)

    async def blocking(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `fn` in a run thread (judge calls and verify commands can take minutes)."""
        return await self._runs.run(fn, *args, **kwargs)

    async def control(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `fn` in a control thread (short work a request waits for); it finishes even
        if the request is cancelled."""
        return await self._controls.run_to_completion(fn, *args, **kwargs)

    # -- goals: the names the design gives them (the driver is goals/driver.py) -------------

    async def start_goal_loop(
        self,
        request: GoalRequest | str,
        *,
        judge_llm: LLM | None = None,
        max_iterations: int | None = None,
    ) -> None:
        """Start a goal loop for `request` (the route's body, whole; an objective alone with an
        optional round cap is the reference's form); see `GoalDriver.start`."""
        if isinstance(request, str):
            try:
                request = GoalRequest.checked(
                    objective=request,
                    **({} if max_iterations is None else {"max_iterations": max_iterations}),
                )
            except InvalidGoalError as exc:
                raise InvalidRequestError(str(exc), ("body", exc.field or "objective")) from exc
        await self.goal.start(request, judge_llm=judge_llm)

    async def stop_goal_loop(self) -> None:
        """Stop the goal loop and pause the agent."""
        await self.goal.stop()

    async def resume_goal_loop(
        self, *, judge_llm: LLM | None = None, limits: GoalLimitsChange | None = None
    ) -> None:
        """Resume an interrupted goal from its last status (a capped one with new `limits`)."""
        try:
            await self.goal.resume(judge_llm=judge_llm, limits=limits)
        except InvalidGoalError as exc:
            raise InvalidRequestError(str(exc), ("body", exc.field or "max_iterations")) from exc

    @property
    def _goal_loop_task(self) -> asyncio.Task[None] | None:
        """The goal driver's task (None before the first goal)."""
        return self.goal.task

    @property
    def _goal_loop_outcome(self) -> GoalOutcome | None:
        """How the last goal ended (None while one runs, or before the first)."""
        return self.goal.outcome

    # -- life cycle -------------------------------------------------------------------------

    def begin_delete(self) -> None:
        """Refuse new work from now on; `abort_delete` undoes it if the deletion failed."""
        self.ensure_open()
        self._closed = True

    def abort_delete(self) -> None:
        """The deletion did not happen: the conversation takes work again."""
        self._closed = False

    async def discard(self) -> None:
        """Release a deleted conversation (its folder is already gone): record nothing more.

        Sockets close, the goal driver stops, the agent is asked to pause; once its current
        step ends (at most `CLOSE_WAIT_SECONDS`) the conversation's tools and files are
        released.
        """
        self._closed = True
        self._deleted = True
        self.pubsub.close()
        if self.goal.active:
            await self.goal.discard()
        future = self._run_future
        if future is not None and future.cancel():
            future = None  # a run still queued for a thread never starts
        if self.is_busy:
            # The pause is requested even when its event cannot be written (folder gone).
            with contextlib.suppress(StorageError, EventLogClosedError):
                await self._controls.run_to_completion(self.request_pause)
            if future is not None:
                done, _ = await asyncio.wait(
                    {asyncio.wrap_future(future)}, timeout=CLOSE_WAIT_SECONDS
                )
                if not done:
                    logger.warning("deleted conversation %s: its agent did not pause", self.id)
        await self._controls.run_to_completion(self.conversation.close)

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
            await self.pause()
            if future is not None:
                done, _ = await asyncio.wait({asyncio.wrap_future(future)}, timeout=run_wait)
                if not done:
                    logger.warning("conversation %s: the agent did not pause in time", self.id)
                    if leave_running:
                        self.pubsub.close()
                        return False
        self.pubsub.close()
        await self._controls.run_to_completion(self.conversation.close)
        return True


EventService = LiveConversation
"""The design's name for the live conversation (kept importable)."""


def _no_check() -> None:
    """The key check of a conversation whose keys are all in memory."""


def _closed_message(conversation_id: uuid.UUID) -> str:
    return (
        f"Conversation {conversation_id} does not exist any more (it was deleted, or the "
        "server is shutting down)."
    )


def _too_many_rules(limit: int, count: int | None = None) -> str:
    given = f"{count} given; " if count is not None else ""
    return (
        f"a conversation holds at most {limit} standing approvals (OH_MAX_APPROVAL_RULES); "
        f"{given}allow a whole tool (command_prefix null) or a shorter prefix instead of many"
    )
