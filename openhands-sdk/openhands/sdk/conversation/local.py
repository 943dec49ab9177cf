"""`LocalConversation`: runs an agent in this process, optionally persisted to disk.

The conversation owns one collaborator per concern, each in its own module: the runs
(`run_loop.RunLoop`), approvals (`approvals.Approvals`), fork and HEAD moves
(`branching.Branching`), checkpoints (`checkpointing.Checkpointing`), client tool calls
(`client_calls.ClientCalls`), model switching (`llm_switch.LLMSwitching`), the side questions'
LLMs (`side_llms.SideLLMs`) and the log's writer (`recording.Recorder`). They see the
conversation only through `core.ConversationCore` and each keeps its own flags; its base,
`parts.ConversationParts`, makes them and hands the public calls over to them. `lifecycle`
opens the state from the constructor's arguments, makes the tools and saves the state at
close. This module keeps what ties them together: setting a conversation up (new, reopened or
forked), events and callbacks, messages, tools, secrets, close.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.conversation.base import as_user_message
from openhands.sdk.conversation.config import ConversationConfig
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.errors import (
    CondenserUnavailableError,
    ConversationAlreadyRunningError,
    UserPromptBlockedError,
)
from openhands.sdk.conversation.hook_agent import hook_agent_for
from openhands.sdk.conversation.lifecycle import (
    SandboxClaim,
    close_tools,
    introduce,
    open_state,
    save_at_close,
    start_tools,
)
from openhands.sdk.conversation.parts import ConversationParts
from openhands.sdk.conversation.publisher import Callback, EventPublisher
from openhands.sdk.conversation.recording import RUN_LOST, Recorder
from openhands.sdk.conversation.run_loop import (
    CLOSE_WAIT_SECONDS,
    STOP_HOOK_FEEDBACK_PREFIX,
)
from openhands.sdk.conversation.secret_registry import SecretRegistry
from openhands.sdk.conversation.state import ConversationExecutionStatus, ConversationState
from openhands.sdk.conversation.stuck import StuckDetector
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
from openhands.sdk.llm.message import Message
from openhands.sdk.secret.secrets import SecretValue
from openhands.sdk.tool.tool import Action, Observation, ToolDefinition
from openhands.sdk.workspace.local import LocalWorkspace

if TYPE_CHECKING:
    from collections.abc import Callable

    from openhands.sdk.plugin.types import PluginSource, ResolvedPluginSource
    from openhands.sdk.tool.client_tool import ClientToolSpec

__all__ = ["CLOSE_WAIT_SECONDS", "RUN_LOST", "STOP_HOOK_FEEDBACK_PREFIX", "LocalConversation"]

logger = logging.getLogger(__name__)

Status = ConversationExecutionStatus


class LocalConversation(ConversationParts["LocalConversation"]):
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
        """Set this conversation and its collaborators up around `state` (new, reopened or
        forked)."""
        self._state = state
        self._closed = False
        listeners = list(callbacks or ())
        self._visualizer = visualizer
        if visualizer is not None:
            visualizer.initialize(state)
            listeners.append(visualizer.on_event)  # after the user's callbacks
        self._publisher = EventPublisher(state, listeners)
        self._on_token = compose_token_callbacks(token_callbacks)
        self._recorder = Recorder(state, self._publisher)
        self._stuck_detector = StuckDetector(state, thresholds)
        self.resolved_plugins: list[ResolvedPluginSource] | None = None
        """The plugins this conversation was created with, pinned to what loaded (or None)."""

        # Other conversations' sandboxed processes must not see this workspace or this log.
        self._claim = SandboxClaim(state)
        try:
            self.tools: dict[str, ToolDefinition] = start_tools(state)
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
                on_event=self._recorder.emit,
                llm_source=lambda: state.agent.llm,
                stats=state.stats,
                hook_agent=hook_agent_for(LocalConversation),
            )
            self._take_parts(
                state,
                self._recorder,
                step=self._take_step,
                hooks=self.hook_runner,
                stuck=self._stuck_detector,
                open_fork=self._open_fork,
                on_plugin_loaded=self._plugin_loaded,
            )
            introduce(state, self._recorder, self.tools, self.tool_schemas, self.context)
            self.hook_runner.run(HookEventType.SESSION_START, {})
        except BaseException:
            # An unknown tool, bad params or a refusing disk: release the log, and leave no
            # folder behind for a conversation that was never created.
            self._claim.release()
            state.discard()
            raise

    def _open_fork(self, state: ConversationState) -> LocalConversation:
        """A conversation set up around the forked `state`, with this one's settings."""
        visualizer = make_visualizer(type(self._visualizer)) if self._visualizer else None
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

    def _plugin_loaded(self, tools: dict[str, ToolDefinition]) -> None:
        """A plugin was loaded (`PluginLoading`): its tools, skills and hooks from now on."""
        from openhands.sdk.context.conversation_context import ConversationContext

        state = self._state
        self.tools = tools
        self._approvals.tools_changed()
        self.context = ConversationContext(state.agent.agent_context, state.workspace.working_dir)
        if state.hook_config is not None:
            self.hook_runner.config = state.hook_config

    def _take_step(self, on_event: Callable[[Event], None]) -> bool:
        """One agent step (the run loop's `step`); its events go to `on_event`."""
        agent = self._state.agent
        if self._on_token is None:
            return agent.step(self, on_event)
        return agent.step(self, on_event, on_token=self._on_token)

    # -- what it is ----------------------------------------------------------------------------

    @property
    def id(self) -> uuid.UUID:
        return self._state.id

    @property
    def state(self) -> ConversationState:
        return self._state

    @property
    def agent(self) -> AgentBase:
        """The agent driving this conversation, with its context as resolved here: with
        `load_project_skills`, the workspace's skills are among `agent_context.skills` (they
        win a name over the context's own). The stored agent (`state.agent`) keeps the
        context as given, so a reopened conversation reads the workspace again."""
        agent = self._state.agent
        context = getattr(self, "context", None)  # None while the conversation is set up
        resolved = None if context is None else context.agent_context
        if resolved is None or resolved is agent.agent_context:
            return agent
        return agent.model_copy(update={"agent_context": resolved})

    @property
    def conversation_stats(self) -> ConversationStats:
        """The LLM usage of this conversation, per usage_id (register other LLMs there)."""
        return self._state.stats

    @property
    def max_iteration_per_run(self) -> int:
        """The agent steps one `run()` may take before it ends `error` (500 unless set)."""
        return self._state.max_iterations

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

    # -- events, messages, tools, secrets ------------------------------------------------------

    def append_event(self, event: Event) -> None:
        """Append an event from outside the agent (e.g. a goal status update) and publish it."""
        self._check_open()
        self._recorder.emit(event)

    def condense(self) -> None:
        """Condense the history now with the agent's condenser: the older part of what the LLM
        sees becomes one summary (a `Condensation` event; the log keeps every event). Nothing
        happens when there is too little to condense. The summarizer's usage is counted.

        Raises `CondenserUnavailableError` (a ValueError) when the agent has no condenser that
        condenses on request, `ConversationAlreadyRunningError` during a run (condense between
        runs, or pause first).
        """
        self._check_open()
        condenser = self.agent.condenser
        if condenser is None or not condenser.handles_condensation_requests():
            what = (
                "no condenser is configured"
                if condenser is None
                else f"its {type(condenser).__name__} does not condense on request"
            )
            raise CondenserUnavailableError(
                f"Cannot condense conversation {self.id}: {what}. Give the agent an "
                "LLMSummarizingCondenser (Agent(condenser=LLMSummarizingCondenser(llm=...)))."
            )
        if self.is_running:
            raise ConversationAlreadyRunningError(
                f"Conversation {self.id} is running; condense it once the run has ended (pause it)."
            )
        for llm in condenser.llms:
            self._state.stats.register_llm(llm)  # type: ignore[arg-type]
        condensation = condenser.condense_now(self._state.llm_messages())
        if condensation is None:
            return
        self.append_event(condensation)
        self.record_stats()

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
        with self._state.lock:
            # Skills the message triggers and what the hooks added extend what the LLM sees.
            event = self.context.user_message_event(
                msg, additional_context=hook.additional_context, event_id=message_id
            )
            if sender is not None:
                event = event.model_copy(update={"sender": sender})
            self._recorder.emit(event)
            if self._state.title is None and msg.text.strip():
                self._state.title = msg.text.strip().splitlines()[0][:80]
                self._recorder.save_config()
            if self._state.execution_status in (Status.FINISHED, Status.ERROR, Status.STUCK):
                self._recorder.set_status(Status.IDLE, best_effort=True)

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

    def close(self) -> None:
        """Stop a running agent after its current step, then release tools and files.

        Waits up to CLOSE_WAIT_SECONDS for that step; the conversation can be reopened later
        with the same id and persistence_dir.
        """
        if self._closed:
            return
        self._closed = True
        with self._runs.stopped():
            try:
                self.hook_runner.run(HookEventType.SESSION_END, {})
            except Exception:  # a hook must not keep the conversation from closing
                logger.exception("conversation %s: SessionEnd hooks failed", self.id)
            close_tools(self.tools)
            save_at_close(self._state)
            # For `with workspace:` to report the run to an automation service.
            workspace = self._state.workspace
            workspace.register_cost(self._state.stats.get_combined_metrics().accumulated_cost)
            workspace.register_conversation_id(str(self.id))
            self._claim.release()
