"""`LocalConversation`: runs an agent in this process, optionally persisted to disk.

The class is assembled from parts, each in its own module. Its bases: the run loop
(`run_loop`), fork and HEAD moves (`branching`), approvals (`approvals`), client tool calls
(`client_calls`), checkpoints (`checkpointing`) and model switching (`llm_switch`). It owns
a `Recorder` (`recording`: events, status, usage) and `SideLLMs` (`side_llms`: the LLM copies
of side questions); `lifecycle` opens its state from the constructor's arguments, makes its
tools and saves it at close. This module keeps what ties them together: setting a
conversation up (new, reopened or forked), messages, tools, secrets, side questions, close.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.conversation.approvals import Approvals
from openhands.sdk.conversation.ask import ASK_AGENT_USAGE_ID, answer_question
from openhands.sdk.conversation.base import BaseConversation, as_user_message
from openhands.sdk.conversation.branching import Branching
from openhands.sdk.conversation.checkpointing import Checkpointing
from openhands.sdk.conversation.client_calls import ClientCalls
from openhands.sdk.conversation.config import ConversationConfig
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.errors import (
    ConversationClosedError,
    UserPromptBlockedError,
)
from openhands.sdk.conversation.hook_agent import hook_agent_for
from openhands.sdk.conversation.lifecycle import (
    SandboxClaim,
    close_tools,
    open_state,
    save_at_close,
    start_tools,
)
from openhands.sdk.conversation.llm_switch import LLMSwitching
from openhands.sdk.conversation.publisher import Callback, EventPublisher
from openhands.sdk.conversation.recording import RUN_LOST, Recorder
from openhands.sdk.conversation.run_loop import (
    CLOSE_WAIT_SECONDS,
    STOP_HOOK_FEEDBACK_PREFIX,
    RunLoop,
)
from openhands.sdk.conversation.secret_registry import SecretRegistry
from openhands.sdk.conversation.side_llms import SideLLMs
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
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.event.base import Event
from openhands.sdk.hooks.config import HookConfig, HookEventType
from openhands.sdk.hooks.runner import HookRunner
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.message import Message
from openhands.sdk.secret.secrets import SecretValue
from openhands.sdk.tool.tool import Action, Observation, ToolDefinition
from openhands.sdk.workspace.local import LocalWorkspace

if TYPE_CHECKING:
    from openhands.sdk.plugin.types import PluginSource, ResolvedPluginSource
    from openhands.sdk.tool.client_tool import ClientToolSpec

__all__ = ["CLOSE_WAIT_SECONDS", "RUN_LOST", "STOP_HOOK_FEEDBACK_PREFIX", "LocalConversation"]

logger = logging.getLogger(__name__)

Status = ConversationExecutionStatus


class LocalConversation(
    RunLoop, Branching, Approvals, Checkpointing, ClientCalls, LLMSwitching, BaseConversation
):
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
        delete_on_close: bool = True,
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
        `delete_on_close` is the reference's option, kept as an attribute: closing a local
        conversation ends its tools' processes and never deletes what it stored (as there).
        """
        if max_iteration_per_run is not None and max_iteration_per_run < 1:
            raise InvalidArgumentError(
                f"max_iteration_per_run must be >= 1 (agent steps per run()), got "
                f"{max_iteration_per_run}"
            )
        self.delete_on_close = delete_on_close
        thresholds = thresholds_from(stuck_detection_thresholds)
        shown_by = make_visualizer(visualizer)
        if secrets:
            SecretRegistry().update_secrets(secrets)  # refuse bad names before creating anything
        state, resolved_plugins = open_state(
            agent,
            workspace,
            persistence_dir=persistence_dir,
            conversation_id=conversation_id,
            max_iteration_per_run=max_iteration_per_run,
            hook_config=hook_config,
            stuck_detection=stuck_detection,
            tags=tags,
            config=config,
            plugins=plugins,
            client_tools=client_tools,
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
        self._recorder = Recorder(state, self._publisher)
        self._stuck_detector = StuckDetector(state, thresholds)
        self._init_run_loop()
        self._closed = False
        self._side_llms = SideLLMs(lambda: self._state.agent.llm, state.stats)
        self.resolved_plugins: list[ResolvedPluginSource] | None = None
        """The plugins this conversation was created with, pinned to what loaded (or None)."""

        # Other conversations' sandboxed processes must not see this workspace or this log.
        self._claim = SandboxClaim(state)
        try:
            self.tools: dict[str, ToolDefinition] = start_tools(state)
            self.tool_schemas = self._tool_schemas()
            # Imported here: skill files and memory are only read when a conversation starts.
            from openhands.sdk.context.conversation_context import ConversationContext

            agent_context = state.agent.agent_context
            if agent_context is not None and agent_context.secrets:
                state.secret_registry.update_secrets(agent_context.usable_secrets())
            if secrets:  # before the system prompt, which names them; they win a name
                state.secret_registry.update_secrets(secrets)
            self.context = ConversationContext(
                agent_context,
                state.workspace.working_dir,
                state.secret_registry.get_secret_infos(),
            )
            self.hook_runner = HookRunner(
                state.hook_config,
                state.workspace.working_dir,
                session_id=state.id.hex,
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
                self._recorder.record_interruption()
            self.hook_runner.run(HookEventType.SESSION_START, {})
        except BaseException:
            # An unknown tool, bad params or a refusing disk: release the log, and leave no
            # folder behind for a conversation that was never created.
            self._claim.release()
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
            raise InvalidArgumentError(
                "question must be a non-blank string: say what to ask the agent"
            )
        self._check_open()
        return answer_question(
            self._state.llm_messages(),
            self._side_llms.get(ASK_AGENT_USAGE_ID),
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
            self._state.active_branch(), llm or self._side_llms.get(TITLE_USAGE_ID), max_length
        )

    def _open_fork(
        self, state: ConversationState, visualizer: ConversationVisualizerBase | None
    ) -> LocalConversation:
        """A conversation set up around the forked `state`, with this one's settings."""
        fork = LocalConversation.__new__(LocalConversation)
        fork._attach(
            state,
            callbacks=None,
            token_callbacks=None,
            thresholds=self._stuck_detector.thresholds,
            visualizer=visualizer,
            secrets=self._state.secret_registry.sources(),
        )
        return fork

    def close(self) -> None:
        """Stop a running agent after its current step, then release tools and files.

        Waits up to CLOSE_WAIT_SECONDS for that step; the conversation can be reopened later
        with the same id and persistence_dir.
        """
        if self._closed:
            return
        self._pause_requested.set()
        self._closed = True
        with self._runs_stopped():
            try:
                self.hook_runner.run(HookEventType.SESSION_END, {})
            except Exception:  # a hook must not keep the conversation from closing
                logger.exception("conversation %s: SessionEnd hooks failed", self.id)
            close_tools(self.tools)
            save_at_close(self._state)
            self._claim.release()

    def record_stats(self) -> None:
        """Append the LLM usage as a `stats` update if it changed since the last one.

        Every run does this when it ends; call it after using a registered LLM outside a run
        (the goal runner does, after its last judge call), so the usage is on disk.
        """
        self._recorder.record_stats()

    def _check_open(self) -> None:
        if self._closed:
            raise ConversationClosedError(
                f"Conversation {self.id} is closed; reopen it with the same conversation_id "
                "and persistence_dir to continue."
            )

    # -- what the parts share (see `Recorder`) ------------------------------------------------

    def _take_step(self) -> bool:
        """One agent step; its events go through `_step_emit`."""
        agent = self._state.agent
        if self._on_token is None:
            return agent.step(self, self._step_emit)
        return agent.step(self, self._step_emit, on_token=self._on_token)

    def _emit(self, event: Event) -> Event:
        """Persist `event`, then publish it to the callbacks (see EventPublisher)."""
        return self._recorder.emit(event)

    def _set_status(self, status: Status, *, best_effort: bool = False) -> None:
        """Append the status change (see `Recorder.set_status`)."""
        self._recorder.set_status(status, best_effort=best_effort)

    def _save_config(self) -> None:
        """Save a configuration change; a refusing disk only delays it."""
        self._recorder.save_config()
