"""`LocalConversation`: runs an agent in this process, optionally persisted to disk."""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.conversation.base import (
    BaseConversation,
    as_conversation_id,
    as_user_message,
)
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.errors import (
    ConversationAlreadyRunningError,
    ConversationClosedError,
    ConversationRunError,
    UserPromptBlockedError,
)
from openhands.sdk.conversation.event_log import EventLogClosedError
from openhands.sdk.conversation.publisher import Callback, EventPublisher
from openhands.sdk.conversation.snapshot import BASE_STATE_FILE, STATS_KEY, STATUS_KEY
from openhands.sdk.conversation.state import ConversationExecutionStatus, ConversationState
from openhands.sdk.conversation.stuck import REPEATS as STUCK_REPEATS
from openhands.sdk.conversation.stuck import WINDOW, is_stuck
from openhands.sdk.errors import StorageError
from openhands.sdk.event.base import Event
from openhands.sdk.event.message import MessageEvent, SystemPromptEvent
from openhands.sdk.event.state import (
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    PauseEvent,
)
from openhands.sdk.hooks.config import HookConfig, HookEventType
from openhands.sdk.hooks.runner import HookRunner
from openhands.sdk.llm.message import Message, TextContent
from openhands.sdk.tool.tool import ToolContext, ToolDefinition
from openhands.sdk.workspace.local import LocalWorkspace

logger = logging.getLogger(__name__)

Status = ConversationExecutionStatus

STOP_HOOK_FEEDBACK_PREFIX = "[Stop hook feedback]"

CLOSE_WAIT_SECONDS = 30.0
"""How long `close()` waits for a running step to end before releasing files anyway."""

RUN_LOST = "RunLost"
"""The error code recorded when a conversation is reopened that its dead process left running."""


@dataclass(frozen=True)
class _RunOutcome:
    """How a run ended; published only after the run lock is released."""

    status: ConversationExecutionStatus
    code: str | None = None
    detail: str = ""
    cause: BaseException | None = None


_INTERRUPTED = _RunOutcome(ConversationExecutionStatus.PAUSED)
"""How a run ends when a step is cut short by KeyboardInterrupt or SystemExit: resumable."""


class LocalConversation(BaseConversation):
    """An agent working in a local workspace; every event goes to the log, then to callbacks.

    Callbacks run in the thread that produced the event, one event at a time and in log order,
    while the state lock is held: they may read the conversation (and even call `pause()`),
    but must not block on another thread that needs this conversation.
    """

    def __init__(
        self,
        agent: AgentBase | None,
        workspace: LocalWorkspace | str | Path | None = None,
        *,
        persistence_dir: str | Path | None = None,
        conversation_id: uuid.UUID | str | None = None,
        callbacks: Sequence[Callback] | None = None,
        max_iteration_per_run: int | None = None,
        hook_config: HookConfig | None = None,
        stuck_detection: bool = True,
    ) -> None:
        """Create a conversation, or reopen the one stored under `persistence_dir`.

        Reopening (same `persistence_dir` and `conversation_id`) takes every argument that is
        not None over the stored value: `agent=None` reopens with the stored agent (whose LLM
        has no key), `workspace=None` in the stored workspace, `max_iteration_per_run=None`
        with the stored limit (500 for a new conversation). A new conversation needs an agent;
        its workspace defaults to the current directory. A conversation that a dead process
        left `running` is recorded as interrupted (`RUN_LOST`) and set to `error`.
        """
        if max_iteration_per_run is not None and max_iteration_per_run < 1:
            raise ValueError("max_iteration_per_run must be >= 1")
        cid = as_conversation_id(conversation_id) or uuid.uuid4()
        folder = Path(persistence_dir) / cid.hex if persistence_dir is not None else None
        if workspace is None and (folder is None or not (folder / BASE_STATE_FILE).is_file()):
            workspace = os.getcwd()
        if workspace is not None and not isinstance(workspace, LocalWorkspace):
            workspace = LocalWorkspace(working_dir=str(workspace))
        if workspace is not None:
            workspace.ensure_exists()
        state = ConversationState.create(
            cid,
            agent,
            workspace,
            persistence_dir=folder,
            max_iterations=max_iteration_per_run,
            stuck_detection=stuck_detection,
            hook_config=hook_config,
        )
        self._state = state
        self._lock = state.lock  # cached: read on every event
        self._publisher = EventPublisher(state, callbacks or ())
        self._pause_requested = threading.Event()
        self._run_lock = threading.Lock()
        self._run_thread: int | None = None
        self._steps = 0  # agent steps taken in the current run
        self._step_start = 0  # event count when the current step began
        self._closed = False
        self._stats_recorded = state.stats.fingerprint()  # what the log's last stats say

        context = ToolContext(
            working_dir=state.workspace.working_dir,
            persistence_dir=str(state.folder) if state.folder else None,
            conversation_id=cid.hex,
        )
        try:
            state.workspace.ensure_exists()
            self.tools: dict[str, ToolDefinition] = state.agent.init_tools(context)
            self.tool_schemas = [tool.to_openai_tool() for tool in self.tools.values()]
            self.hook_runner = HookRunner(
                state.hook_config, state.workspace.working_dir, session_id=cid.hex
            )
            if not state.has_events:
                self._emit(
                    SystemPromptEvent(
                        system_prompt=TextContent(text=state.agent.system_prompt),
                        tools=self.tool_schemas,
                    )
                )
            elif state.execution_status == Status.RUNNING:
                self._record_interruption()
        except BaseException:
            # An unknown tool, bad params or a refusing disk: release the log, and leave no
            # folder behind for a conversation that was never created.
            state.discard()
            raise

    # -- public API ---------------------------------------------------------------------------

    @property
    def id(self) -> uuid.UUID:
        return self._state.id

    @property
    def state(self) -> ConversationState:
        return self._state

    @property
    def agent(self) -> AgentBase:
        """The agent driving this conversation."""
        return self._state.agent

    @property
    def conversation_stats(self) -> ConversationStats:
        """The LLM usage of this conversation, per usage_id (register other LLMs there)."""
        return self._state.stats

    @property
    def stuck_detection(self) -> bool:
        """Whether a run that repeats the same action and result ends `stuck`."""
        return self._state.stuck_detection

    @stuck_detection.setter
    def stuck_detection(self, value: bool) -> None:
        self._state.stuck_detection = value

    @property
    def workspace(self) -> LocalWorkspace:
        """Where the agent's tools run."""
        return self._state.workspace

    @property
    def is_running(self) -> bool:
        """True while `run()` is executing in some thread.

        It turns False just before the final status is published, so whoever sees that status
        may start the next run at once.
        """
        return self._run_lock.locked()

    @property
    def is_closed(self) -> bool:
        """True once `close()` was called."""
        return self._closed

    def append_event(self, event: Event) -> None:
        """Append an event from outside the agent (e.g. a goal status update) and publish it."""
        self._check_open()
        self._emit(event)

    def add_callback(self, callback: Callback) -> None:
        """Call `callback(event)` for every event appended from now on."""
        self._publisher.add(callback)

    def remove_callback(self, callback: Callback) -> None:
        """Stop calling a callback given to `add_callback` (or the constructor)."""
        self._publisher.remove(callback)

    def send_message(self, message: str | Message) -> None:
        self._check_open()
        msg = as_user_message(message)
        hook = self.hook_runner.run(HookEventType.USER_PROMPT_SUBMIT, {"prompt": msg.text})
        if hook.blocked:
            raise UserPromptBlockedError(hook.feedback)
        with self._lock:
            self._emit(MessageEvent(source="user", llm_message=msg))
            if self._state.title is None and msg.text.strip():
                self._state.title = msg.text.strip().splitlines()[0][:80]
                self._save_config()
            if self._state.execution_status in (Status.FINISHED, Status.ERROR, Status.STUCK):
                self._set_status(Status.IDLE, best_effort=True)

    def run(self) -> None:
        """Run the agent until it finishes, pauses, errors, gets stuck or hits the step cap.

        Raises `ConversationRunError` (with the error's code and detail) when the run fails,
        and `ConversationAlreadyRunningError` if another thread is running it.
        """
        self._check_open()
        if not self._run_lock.acquire(blocking=False):
            raise ConversationAlreadyRunningError(
                f"Conversation {self.id} is already running; pause it or wait for it to finish."
            )
        try:
            self._run_thread = threading.get_ident()
            with self._lock:
                # A pause requested before this run started (or left from the last) is spent.
                self._pause_requested.clear()
                self._set_status(Status.RUNNING)
        except BaseException:
            # Not started (the disk refused `running`): nothing to end, the status is unchanged.
            self._run_thread = None
            self._run_lock.release()
            raise
        outcome = _INTERRUPTED
        ended = False
        try:
            self._steps = 0
            while not ended:
                outcome = _INTERRUPTED
                outcome = self._run_loop()
                with self._lock:
                    # Decided under the lock that send_message takes, so a message sent while
                    # the agent was finishing is answered instead of left behind `finished`.
                    if outcome.status == Status.FINISHED and self._user_spoke_since_step():
                        continue
                    ended = True
                    outcome = self._end_run(outcome)
        finally:
            if not ended:
                with self._lock:
                    self._end_run(outcome)
        if outcome.status == Status.ERROR:
            raise ConversationRunError(self.id, outcome.code or "Error", outcome.detail) from (
                outcome.cause
            )

    def pause(self) -> None:
        """Stop after the current step (a running conversation) or mark an idle one paused."""
        if self._closed:
            return
        with self._lock:
            status = self._state.execution_status
            if status == Status.PAUSED and not self.is_running:
                return
            self._pause_requested.set()
            self._emit(PauseEvent())
            if status != Status.RUNNING:
                self._set_status(Status.PAUSED, best_effort=True)

    def close(self) -> None:
        """Stop a running agent after its current step, then release tools and files.

        Waits up to CLOSE_WAIT_SECONDS for that step; the conversation can be reopened later
        with the same id and persistence_dir.
        """
        if self._closed:
            return
        self._pause_requested.set()
        self._closed = True
        waited = self._run_thread == threading.get_ident() or self._run_lock.acquire(
            timeout=CLOSE_WAIT_SECONDS
        )
        if not waited:
            logger.warning(
                "conversation %s: closing while a step is still running (%ss passed)",
                self.id,
                CLOSE_WAIT_SECONDS,
            )
        try:
            for tool in self.tools.values():
                try:
                    tool.close()
                except Exception:
                    logger.exception("closing tool %s failed", tool.name)
            with self._lock:
                folder = self._state.folder
                try:
                    # The snapshot that lets a reopen skip the history; none for a folder
                    # that was removed (the conversation was deleted, e.g. by the server).
                    if folder is None or folder.is_dir():
                        self._state.save()
                except StorageError as exc:
                    logger.warning(
                        "conversation %s: base_state.json not updated at close (the event "
                        "log has everything, a reopen reads it instead): %s",
                        self.id,
                        exc,
                    )
                self._state.close()
        finally:
            if waited and self._run_thread != threading.get_ident():
                self._run_lock.release()

    # -- the run loop -------------------------------------------------------------------------

    def _run_loop(self) -> _RunOutcome:
        while True:
            if self._pause_requested.is_set():
                return _RunOutcome(Status.PAUSED)
            if self._steps >= self._state.max_iterations:
                return _RunOutcome(
                    Status.ERROR,
                    "MaxIterationsReached",
                    f"The agent took {self._steps} steps without finishing; raise "
                    "max_iteration_per_run or send a message and run again to continue.",
                )
            self._step_start = len(self._state.events)
            try:
                wants_to_finish = self._state.agent.step(self, self._emit)
            except Exception as exc:
                return _RunOutcome(Status.ERROR, type(exc).__name__, str(exc) or repr(exc), exc)
            self._steps += 1
            if wants_to_finish:
                if self._user_spoke_since_step() or self._stop_denied():
                    continue
                return _RunOutcome(Status.FINISHED)
            if self.stuck_detection and self._is_stuck():
                return _RunOutcome(
                    Status.STUCK,
                    "Stuck",
                    "The agent repeated the same action with the same result "
                    f"{STUCK_REPEATS} times; send it a message with new guidance and run again.",
                )

    def _user_spoke_since_step(self) -> bool:
        """Whether a user message arrived after the current step's LLM call began."""
        return any(
            isinstance(event, MessageEvent) and event.source == "user"
            for event in self._state.events.read(self._step_start)
        )

    def _end_run(self, outcome: _RunOutcome) -> _RunOutcome:
        # Free the run lock before publishing the final status, so a callback that sees
        # `finished` can start the next run at once. The caller holds the state lock.
        self._run_thread = None
        self._run_lock.release()
        return self._publish_outcome(outcome)

    def _publish_outcome(self, outcome: _RunOutcome) -> _RunOutcome:
        """Record how the run ended (usage, error, status); return how it really ended."""
        try:
            self._record_stats()
            if outcome.code is not None:
                self._emit(ConversationErrorEvent(code=outcome.code, detail=outcome.detail))
            self._set_status(outcome.status)
        except EventLogClosedError:
            # close() gave up waiting for this run; the status is only kept in memory.
            self._state.execution_status = outcome.status
            logger.warning("conversation %s: run ended %s after close", self.id, outcome.status)
        except StorageError as exc:
            # The end could not be recorded: the run failed, in memory at least, so nobody
            # waits on a `running` that will never change. A reopen finds `running` in the
            # log and records the interruption.
            self._state.execution_status = Status.ERROR
            logger.error("conversation %s: the end of a run was not recorded: %s", self.id, exc)
            return _RunOutcome(Status.ERROR, type(exc).__name__, str(exc), exc)
        return outcome

    def _record_stats(self) -> None:
        """Append the LLM usage as a `stats` update if it changed since the last one."""
        stats = self._state.stats
        fingerprint = stats.fingerprint()
        if fingerprint != self._stats_recorded:
            self._emit(
                ConversationStateUpdateEvent(key=STATS_KEY, value=stats.model_dump(mode="json"))
            )
            self._stats_recorded = fingerprint

    def _record_interruption(self) -> None:
        """The process running this conversation died mid-run: say so, and leave `running`."""
        self._emit(
            ConversationErrorEvent(
                code=RUN_LOST,
                detail="The process running this conversation stopped in the middle of a run "
                "(it crashed or was killed), so the last step may be incomplete. Send a "
                "message or run it again to continue.",
            )
        )
        self._set_status(Status.ERROR)

    def _save_config(self) -> None:
        """Save a configuration change; a refusing disk only delays it (it is retried later)."""
        try:
            self._state.save_config()
        except StorageError as exc:
            logger.warning("conversation %s: configuration not saved yet: %s", self.id, exc)

    def _stop_denied(self) -> bool:
        """Run Stop hooks; if one blocks, give its feedback to the agent and keep going."""
        result = self.hook_runner.run(HookEventType.STOP, {"conversation_id": self.id.hex})
        if not result.blocked:
            return False
        feedback = f"{STOP_HOOK_FEEDBACK_PREFIX}\n{result.feedback}"
        self._emit(
            MessageEvent(
                source="hook",
                llm_message=Message(role="user", content=[TextContent(text=feedback)]),
            )
        )
        return True

    def _is_stuck(self) -> bool:
        events = self._state.events
        total = len(events)
        return is_stuck(events.read(max(0, total - WINDOW), total))

    def _check_open(self) -> None:
        if self._closed:
            raise ConversationClosedError(
                f"Conversation {self.id} is closed; reopen it with the same conversation_id "
                "and persistence_dir to continue."
            )

    # -- events and status --------------------------------------------------------------------

    def _emit(self, event: Event) -> None:
        """Persist `event`, then publish it to the callbacks (see EventPublisher)."""
        self._publisher.emit(event)

    def _set_status(self, status: Status, *, best_effort: bool = False) -> None:
        """Append the status change (the state applies it once it is on disk).

        With `best_effort`, a refusing disk only logs a warning and the status changes in
        memory: used right after an event that was already acknowledged, so the caller does
        not see a failure for something that was stored.
        """
        with self._lock:
            if self._state.execution_status == status:
                return
            try:
                self._emit(ConversationStateUpdateEvent(key=STATUS_KEY, value=status.value))
            except StorageError as exc:
                if not best_effort:
                    raise
                self._state.execution_status = status
                logger.warning("conversation %s: status %s not recorded: %s", self.id, status, exc)
