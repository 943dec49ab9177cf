"""`LocalConversation`: runs an agent in this process, optionally persisted to disk."""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.conversation.approvals import Approvals
from openhands.sdk.conversation.ask import ASK_AGENT_USAGE_ID, answer_question
from openhands.sdk.conversation.base import (
    BaseConversation,
    as_conversation_id,
    as_user_message,
)
from openhands.sdk.conversation.checkpointing import Checkpointing
from openhands.sdk.conversation.client_calls import ClientCalls
from openhands.sdk.conversation.config import ConversationConfig
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.errors import (
    MAX_ITERATIONS_REACHED,
    ConversationAlreadyRunningError,
    ConversationClosedError,
    ConversationRunError,
    UserPromptBlockedError,
)
from openhands.sdk.conversation.event_log import EventLogClosedError
from openhands.sdk.conversation.fork import copy_agent, fork_state
from openhands.sdk.conversation.hook_agent import hook_agent_for
from openhands.sdk.conversation.llm_switch import LLMSwitching
from openhands.sdk.conversation.publisher import Callback, EventPublisher
from openhands.sdk.conversation.secret_registry import SecretRegistry
from openhands.sdk.conversation.snapshot import BASE_STATE_FILE, HEAD_KEY, STATS_KEY, STATUS_KEY
from openhands.sdk.conversation.state import ConversationExecutionStatus, ConversationState
from openhands.sdk.conversation.stuck import StuckDetector
from openhands.sdk.conversation.title_utils import TITLE_USAGE_ID, generate_conversation_title
from openhands.sdk.conversation.types import (
    ConversationTokenCallbackType,
    StuckDetectionThresholds,
    compose_token_callbacks,
    thresholds_from,
)
from openhands.sdk.conversation.visualizer.base import (
    ConversationVisualizerBase,
    VisualizerOption,
    make_visualizer,
)
from openhands.sdk.errors import StorageError
from openhands.sdk.event.action import AgentErrorEvent, ObservationEvent, UserRejectObservation
from openhands.sdk.event.base import Event
from openhands.sdk.event.message import MessageEvent
from openhands.sdk.event.state import (
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    InterruptEvent,
    PauseEvent,
)
from openhands.sdk.hooks.config import HookConfig, HookEventType
from openhands.sdk.hooks.runner import HookRunner
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.message import Message, TextContent
from openhands.sdk.secret.secrets import SecretValue
from openhands.sdk.tool.tool import Action, Observation, ToolContext, ToolDefinition
from openhands.sdk.workspace.local import LocalWorkspace
from openhands.sdk.workspace.sandbox import (
    claim_workspace,
    hide_path,
    release_workspace,
    unhide_path,
)

if TYPE_CHECKING:
    from openhands.sdk.plugin.types import PluginSource, ResolvedPluginSource
    from openhands.sdk.tool.client_tool import ClientToolSpec

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
    raises: bool = True  # an error outcome makes run() raise ConversationRunError
    interrupted: bool = False  # record an InterruptEvent


_INTERRUPTED = _RunOutcome(ConversationExecutionStatus.PAUSED)
"""How a run ends when a step is cut short by KeyboardInterrupt or SystemExit: resumable."""

_RESULT_EVENTS = (ObservationEvent, AgentErrorEvent, UserRejectObservation)
"""The answer to a tool call that already ran: kept even when the step was interrupted."""


class _StepInterrupted(BaseException):
    """Unwinds an agent step after `interrupt()` (a BaseException, so no tool handler eats it)."""


class LocalConversation(Approvals, Checkpointing, ClientCalls, LLMSwitching, BaseConversation):
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
        token_callbacks: Sequence[ConversationTokenCallbackType] | None = None,
        max_iteration_per_run: int | None = None,
        hook_config: HookConfig | None = None,
        stuck_detection: bool | None = None,
        stuck_detection_thresholds: StuckDetectionThresholds | Mapping[str, int] | None = None,
        visualizer: VisualizerOption = None,
        secrets: Mapping[str, SecretValue] | None = None,
        tags: dict[str, str] | None = None,
        config: ConversationConfig | None = None,
        plugins: Sequence[PluginSource | str] | None = None,
        client_tools: Sequence[ClientToolSpec | Mapping[str, Any]] | None = None,
    ) -> None:
        """Create a conversation, or reopen the one stored under `persistence_dir`.

        Reopening (same `persistence_dir` and `conversation_id`) takes every argument that is
        not None over the stored value: `agent=None` reopens with the stored agent (whose LLM
        has no key), `workspace=None` in the stored workspace, `max_iteration_per_run=None`
        with the stored limit (500 for a new conversation). A new conversation needs an agent;
        its workspace defaults to the current directory. A conversation that a dead process
        left `running` is recorded as interrupted (`RUN_LOST`) and set to `error`.

        `visualizer` shows events as they happen: an instance or a class of
        `ConversationVisualizerBase`; the default None shows nothing (this SDK stays quiet
        in tests and servers). `token_callbacks` get each streamed chunk of the agent's LLM
        replies. `stuck_detection_thresholds` tune the stuck detector. `secrets` are as in
        `update_secrets` (kept in memory only); `tags` are key-value labels saved with it.
        `config` gives the whole configuration at once (agent, workspace, confirmation policy,
        security analyzer, hooks, limits: what a fork or a server request carries); the
        single arguments above override its fields.
        `plugins` are fetched and merged into the agent (skills, MCP servers) and the hooks
        before it starts (see `openhands.sdk.plugin`; `resolved_plugins` pins what loaded).
        `client_tools` are tools the caller runs itself (see `openhands.sdk.tool.client_tool`):
        the agent gets them and a call to one ends the run until `respond_to_client_tool`.
        """
        if max_iteration_per_run is not None and max_iteration_per_run < 1:
            raise ValueError("max_iteration_per_run must be >= 1")
        thresholds = thresholds_from(stuck_detection_thresholds)
        shown_by = make_visualizer(visualizer)
        if secrets:
            SecretRegistry().update_secrets(secrets)  # refuse bad names before creating anything
        resolved_plugins = None
        if plugins:
            if agent is None:
                raise ValueError("plugins are merged into an agent: pass the agent too")
            from openhands.sdk.plugin.loader import resolve_plugins

            loaded = resolve_plugins(plugins, agent)
            agent = loaded.agent
            hook_config = HookConfig.merge([c for c in (hook_config, loaded.hooks) if c])
            resolved_plugins = loaded.resolved
        if client_tools:
            if agent is None:
                raise ValueError("client_tools are given to an agent: pass the agent too")
            from openhands.sdk.tool.client_tool import with_client_tools

            agent = with_client_tools(agent, client_tools)
        cid = as_conversation_id(conversation_id) or uuid.uuid4()
        folder = Path(persistence_dir) / cid.hex if persistence_dir is not None else None
        stored = folder is not None and (folder / BASE_STATE_FILE).is_file()
        if workspace is None and config is not None:
            workspace = config.workspace
        if workspace is None and not stored:
            workspace = os.getcwd()
        if workspace is not None and not isinstance(workspace, LocalWorkspace):
            workspace = LocalWorkspace(working_dir=str(workspace))
        made_workspace = False
        if workspace is not None:
            made_workspace = not stored and not Path(workspace.working_dir).exists()
            workspace.ensure_exists()
        state = ConversationState.create(
            cid,
            agent,
            workspace,
            persistence_dir=folder,
            max_iterations=max_iteration_per_run,
            stuck_detection=stuck_detection,
            hook_config=hook_config,
            tags=tags,
            config=config,
            created_workspace=made_workspace,
        )
        self._attach(
            state,
            callbacks=callbacks,
            token_callbacks=token_callbacks,
            thresholds=thresholds,
            visualizer=shown_by,
            secrets=secrets,
        )
        self.resolved_plugins = resolved_plugins

    def _attach(
        self,
        state: ConversationState,
        *,
        callbacks: Sequence[Callback] | None,
        token_callbacks: Sequence[ConversationTokenCallbackType] | None,
        thresholds: StuckDetectionThresholds,
        visualizer: ConversationVisualizerBase | None,
        secrets: Mapping[str, SecretValue] | None,
    ) -> None:
        """Set this conversation up around `state` (new, reopened or forked)."""
        self._state = state
        self._lock = state.lock  # cached: read on every event
        listeners = list(callbacks or ())
        self._visualizer = visualizer
        if visualizer is not None:
            visualizer.initialize(state)
            listeners.append(visualizer.on_event)  # after the user's callbacks
        self._publisher = EventPublisher(state, listeners)
        self._on_token = compose_token_callbacks(token_callbacks)
        self._stuck_detector = StuckDetector(state, thresholds)
        self._pause_requested = threading.Event()
        self._interrupted = threading.Event()
        self._run_lock = threading.Lock()
        self._run_thread: int | None = None
        self._steps = 0  # agent steps taken in the current run
        self._step_start = 0  # event count when the current step began
        self._closed = False
        self._stats_recorded = state.stats.fingerprint()  # what the log's last stats say
        self._side_llms: dict[str, LLM] = {}  # ask_agent / title copies of the agent's LLM
        self._side_lock = threading.Lock()
        self.resolved_plugins: list[ResolvedPluginSource] | None = None
        """The plugins this conversation was created with, pinned to what loaded (or None)."""

        cid = state.id
        # Other conversations' sandboxed processes must not see this workspace or this log.
        self._claimed = (state.workspace.working_dir, state.folder)
        claim_workspace(state.workspace.working_dir, state.workspace.sandbox)
        if state.folder is not None:
            hide_path(state.folder)
        context = ToolContext(
            working_dir=state.workspace.working_dir,
            persistence_dir=str(state.folder) if state.folder else None,
            conversation_id=cid.hex,
        )
        try:
            state.workspace.ensure_exists()
            if any("spec" in tool.params for tool in state.agent.tools):
                # Client tools travel in their spec: register them again in a new process.
                from openhands.sdk.tool import client_tool

                client_tool.register_client_tools(
                    client_tool.extract_client_tool_specs(state.agent.tools)
                )
            self.tools: dict[str, ToolDefinition] = state.agent.init_tools(context)
            self.tool_schemas = self._tool_schemas()
            # Imported here: skill files and memory are only read when a conversation starts.
            from openhands.sdk.context.conversation_context import ConversationContext

            self.context = ConversationContext(
                state.agent.agent_context, state.workspace.working_dir
            )
            self.hook_runner = HookRunner(
                state.hook_config,
                state.workspace.working_dir,
                session_id=cid.hex,
                on_event=self._emit,
                llm_source=lambda: self._state.agent.llm,
                stats=state.stats,
                hook_agent=hook_agent_for(LocalConversation),
            )
            if not state.has_events:
                records = [
                    {**schema, **tool.identity()}
                    for schema, tool in zip(self.tool_schemas, self.tools.values(), strict=True)
                ]
                self._emit(state.agent.system_prompt_event(records, self.context))
            elif state.execution_status == Status.RUNNING:
                self._record_interruption()
            if secrets:
                state.secret_registry.update_secrets(secrets)
            self.hook_runner.run(HookEventType.SESSION_START, {})
        except BaseException:
            # An unknown tool, bad params or a refusing disk: release the log, and leave no
            # folder behind for a conversation that was never created.
            self._release_claims()
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
    def stuck_detector(self) -> StuckDetector | None:
        """The stuck detector (`is_stuck()`, `thresholds`), or None when detection is off."""
        return self._stuck_detector if self._state.stuck_detection else None

    @property
    def visualizer(self) -> ConversationVisualizerBase | None:
        """The visualizer shown every event, or None."""
        return self._visualizer

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

    def set_token_callbacks(self, callbacks: Sequence[ConversationTokenCallbackType]) -> None:
        """Replace the callbacks that get each streamed chunk of the agent's LLM replies."""
        self._on_token = compose_token_callbacks(callbacks)

    def add_callback(self, callback: Callback) -> None:
        """Call `callback(event)` for every event appended from now on."""
        self._publisher.add(callback)

    def remove_callback(self, callback: Callback) -> None:
        """Stop calling a callback given to `add_callback` (or the constructor)."""
        self._publisher.remove(callback)

    def send_message(self, message: str | Message, sender: str | None = None) -> None:
        self._check_open()
        msg = as_user_message(message)
        message_id = uuid.uuid4().hex
        hook = self.hook_runner.run(
            HookEventType.USER_PROMPT_SUBMIT,
            {"prompt": msg.text, "message": msg.text},
            message_id=message_id,
        )
        if hook.blocked:
            raise UserPromptBlockedError(hook.feedback)
        with self._lock:
            # Skills the message triggers and what the hooks added extend what the LLM sees.
            event = self.context.user_message_event(
                msg, additional_context=hook.additional_context, event_id=message_id
            )
            if sender is not None:
                event = event.model_copy(update={"sender": sender})
            self._emit(event)
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
                self._interrupted.clear()
                self._approve_if_waiting()
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
        if outcome.status == Status.ERROR and outcome.raises:
            raise ConversationRunError(self.id, outcome.code or "Error", outcome.detail) from (
                outcome.cause
            )

    async def arun(self) -> None:
        """`run()` for asyncio code: the run goes on in a worker thread, the loop stays free.

        Callbacks run in that worker thread (wrap async ones in `AsyncCallbackWrapper`).
        `interrupt()` ends it early; cancelling the awaiting task interrupts the run too
        (the cancellation then propagates as usual). Raises what `run()` raises.
        """
        import asyncio  # not at import time: it costs ~20 ms

        self._check_open()
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(None, self.run)
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            self.interrupt()
            raise

    def interrupt(self) -> None:
        """Stop a run now, not after its step: the run ends `paused` with an InterruptEvent.

        An LLM reply that arrives after the interrupt is dropped, and no further tool call of
        that step runs; a tool call already running finishes first (its result is kept).
        An LLM request already sent cannot be taken back: the run ends when it returns.
        Without a run this is `pause()`. Only sets flags while a run is going, so it is safe
        from a signal handler and from any thread.
        """
        if self._closed:
            return
        if self.is_running:
            self._interrupted.set()
            self._pause_requested.set()
            if self.is_running:
                return
        self.pause()

    def execute_tool(self, tool_name: str, action: Action) -> Observation:
        """Run one of this conversation's tools directly, outside the agent loop.

        Nothing is recorded and no hook runs. Raises KeyError for an unknown tool name.
        """
        self._check_open()
        tool = self.tools.get(tool_name)
        if tool is None:
            raise KeyError(
                f"Tool {tool_name!r} not found; this conversation has: {', '.join(sorted(self.tools))}"
            )
        return tool(action, self)

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

    def update_secrets(self, secrets: Mapping[str, SecretValue]) -> None:
        """Add or replace secrets: `{name: value or SecretSource}`.

        A terminal command that names a secret (`$NAME`) gets it as an environment variable,
        and its value is masked in the command's output. Secrets live in memory only (never
        in events or on disk); a reopened conversation needs them again.
        """
        self._state.secret_registry.update_secrets(secrets)

    def ask_agent(self, question: str) -> str:
        """Ask the agent's LLM a question about the conversation so far; return its answer.

        One completion on the current LLM context plus the question, without tools being
        run: it records no event, changes no status and is not remembered. Safe while
        `run()` is going in another thread. Its cost is counted under usage_id
        `ask-agent-llm`. Raises `ConversationError` if the LLM answers no text.
        """
        if not isinstance(question, str) or not question.strip():
            raise ValueError("question must be a non-blank string")
        self._check_open()
        return answer_question(
            self._state.llm_messages(),
            self._side_llm(ASK_AGENT_USAGE_ID),
            self.tool_schemas,
            question,
        )

    def generate_title(self, llm: LLM | None = None, max_length: int = 50) -> str:
        """A short title for this conversation, from its first user message.

        Uses `llm`, or a copy of the agent's LLM counted under usage_id `title-generation`;
        if the LLM fails, the first message cut to `max_length`. Does not change
        `state.title`. Raises ValueError if there is no user message yet.
        """
        return generate_conversation_title(
            self._state.active_branch(), llm or self._side_llm(TITLE_USAGE_ID), max_length
        )

    def fork(
        self,
        *,
        conversation_id: uuid.UUID | str | None = None,
        agent: AgentBase | None = None,
        title: str | None = None,
        tags: dict[str, str] | None = None,
        reset_metrics: bool = True,
        from_event_id: str | None = None,
    ) -> LocalConversation:
        """A new conversation (new id) that starts with a copy of this one's history.

        `from_event_id`: copy only the branch from the root to that event, and continue from
        there; None copies every event and keeps this HEAD. The fork gets `agent`, or a copy
        of this agent with its own LLM metrics; `tags` (plus "title" when `title` is given)
        and the title; this conversation's limits, hooks, secrets and visualizer class. Its
        usage starts at zero unless `reset_metrics=False`. Creating it records no event in
        either conversation; it is idle. A persisted conversation's fork is persisted next to
        it. Raises `UnknownEventError` (a ValueError) for an unknown `from_event_id` and
        ValueError for an id already in use.
        """
        self._check_open()
        fork_agent = agent if agent is not None else copy_agent(self.agent)
        visualizer = make_visualizer(type(self._visualizer)) if self._visualizer else None
        with self._lock:
            state = fork_state(
                self._state,
                conversation_id=conversation_id,
                agent=fork_agent,
                title=title,
                tags=tags,
                reset_metrics=reset_metrics,
                from_event_id=from_event_id,
            )
            fork = LocalConversation.__new__(LocalConversation)
            fork._attach(
                state,
                callbacks=None,
                token_callbacks=None,
                thresholds=self._stuck_detector.thresholds,
                visualizer=visualizer,
                secrets=self._state.secret_registry.sources(),
            )
        logger.info(
            "conversation %s forked into %s (%s)",
            self.id,
            fork.id,
            "whole log" if from_event_id is None else f"branch up to {from_event_id}",
        )
        return fork

    def navigate_to(self, event_id: str | None) -> None:
        """Move the HEAD: the next event follows `event_id`, starting a sibling branch.

        The agent's context becomes the branch from the root to `event_id` (None: an empty
        tree; the next event starts a new root). Nothing is deleted: the other branches stay
        in `state.events`, out of `state.view`. The move is recorded (a state update), so it
        survives a reopen. Raises `UnknownEventError` (a ValueError) for an id that is not an
        event of this conversation and `ConversationAlreadyRunningError` during a run.
        """
        self._check_open()
        with self._lock:
            if self.is_running:
                raise ConversationAlreadyRunningError(
                    f"Conversation {self.id} is running; pause it and wait for the run to end "
                    "before moving its HEAD."
                )
            if event_id is not None:
                self._state.require_event(event_id)
            if event_id == self._state.leaf_event_id:
                return
            self._emit(ConversationStateUpdateEvent(key=HEAD_KEY, value=event_id))

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
            try:
                self.hook_runner.run(HookEventType.SESSION_END, {})
            except Exception:  # a hook must not keep the conversation from closing
                logger.exception("conversation %s: SessionEnd hooks failed", self.id)
            for tool in self.tools.values():
                try:
                    tool.close()
                except Exception:
                    logger.exception("closing tool %s failed", tool.name)
            with self._lock:
                folder = self._state.folder
                if folder is None or folder.is_dir():
                    self._state.update_event_files()
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
            self._release_claims()
        finally:
            if waited and self._run_thread != threading.get_ident():
                self._run_lock.release()

    def _release_claims(self) -> None:
        """Undo what `_attach` claimed for the sandbox (once)."""
        claimed, self._claimed = self._claimed, None
        if claimed is not None:
            working_dir, folder = claimed
            release_workspace(working_dir)
            if folder is not None:
                unhide_path(folder)

    # -- the run loop -------------------------------------------------------------------------

    def _run_loop(self) -> _RunOutcome:
        if self._steps == 0 and self.pending_client_calls:
            return _RunOutcome(Status.PAUSED)  # a client tool call still waits for its answer
        while True:
            if self._interrupted.is_set():
                return _RunOutcome(Status.PAUSED, interrupted=True)
            if self._pause_requested.is_set():
                return _RunOutcome(Status.PAUSED)
            if self._steps >= self._state.max_iterations:
                return _RunOutcome(
                    Status.ERROR,
                    MAX_ITERATIONS_REACHED,
                    f"The agent took {self._steps} steps without finishing; raise "
                    "max_iteration_per_run or send a message and run again to continue.",
                    raises=False,
                )
            self._step_start = len(self._state.events)
            try:
                wants_to_finish = self._take_step()
            except _StepInterrupted:
                return _RunOutcome(Status.PAUSED, interrupted=True)
            except Exception as exc:
                return _RunOutcome(Status.ERROR, type(exc).__name__, str(exc) or repr(exc), exc)
            self._steps += 1
            if self._awaiting_client:
                self._awaiting_client = False
                return _RunOutcome(Status.PAUSED)
            if self._awaiting_approval:
                self._awaiting_approval = False
                return _RunOutcome(Status.WAITING_FOR_CONFIRMATION)
            if wants_to_finish:
                if self._user_spoke_since_step():
                    continue
                if not self._stop_denied():
                    return _RunOutcome(Status.FINISHED)
            # After a plain step, and after a denied Stop: a hook that always denies must not
            # keep the agent talking to itself until the step cap.
            reason = self._stuck_reason()
            if reason is not None:
                return _RunOutcome(
                    Status.STUCK,
                    "Stuck",
                    f"The agent {reason}; send it a message with new guidance and run again.",
                )

    def _take_step(self) -> bool:
        """One agent step; its events go through `_step_emit`."""
        agent = self._state.agent
        if self._on_token is None:
            return agent.step(self, self._step_emit)
        return agent.step(self, self._step_emit, on_token=self._on_token)

    def _step_emit(self, event: Event) -> None:
        """Record an event of the running step, unless the step was interrupted.

        After `interrupt()`, the result of a tool call that already ran is still recorded
        (then the step ends); anything else (a late LLM reply, the next call) is dropped.
        """
        if not self._interrupted.is_set():
            self._emit(event)
            return
        if isinstance(event, _RESULT_EVENTS):
            self._emit(event)
        raise _StepInterrupted

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
            if outcome.interrupted:
                self._emit(InterruptEvent())
            if outcome.code is not None:
                self._emit(ConversationErrorEvent(code=outcome.code, detail=outcome.detail))
            self._set_status(outcome.status)
            self._state.update_event_files()
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

    def record_stats(self) -> None:
        """Append the LLM usage as a `stats` update if it changed since the last one.

        Every run does this when it ends; call it after using a registered LLM outside a run
        (the goal runner does, after its last judge call), so the usage is on disk.
        """
        with self._lock:
            self._record_stats()

    def _record_stats(self) -> None:
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

    def _stuck_reason(self) -> str | None:
        detector = self.stuck_detector
        return None if detector is None else detector.check()

    def _check_open(self) -> None:
        if self._closed:
            raise ConversationClosedError(
                f"Conversation {self.id} is closed; reopen it with the same conversation_id "
                "and persistence_dir to continue."
            )

    # -- events and status --------------------------------------------------------------------

    def _emit(self, event: Event) -> Event:
        """Persist `event`, then publish it to the callbacks (see EventPublisher)."""
        return self._publisher.emit(event)

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

    def _side_llm(self, usage_id: str) -> LLM:
        """A copy of the agent's LLM for side questions (own metrics, registered in stats)."""
        with self._side_lock:
            llm = self._side_llms.get(usage_id)
            if llm is None:
                llm = self.agent.llm.copy_for(usage_id, stream=False)
                self._state.stats.register_llm(llm)
                self._side_llms[usage_id] = llm
            return llm
