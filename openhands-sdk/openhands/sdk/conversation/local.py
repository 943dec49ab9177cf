"""`LocalConversation`: runs an agent in this process, optionally persisted to disk."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.conversation.base import BaseConversation, as_user_message
from openhands.sdk.conversation.errors import (
    ConversationAlreadyRunningError,
    ConversationRunError,
    UserPromptBlockedError,
)
from openhands.sdk.conversation.state import ConversationExecutionStatus, ConversationState
from openhands.sdk.conversation.stuck import WINDOW, is_stuck
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
Callback = Callable[[Event], None]

STOP_HOOK_FEEDBACK_PREFIX = "[Stop hook feedback]"


class LocalConversation(BaseConversation):
    """An agent working in a local workspace; every event goes to the log, then to callbacks."""

    def __init__(
        self,
        agent: AgentBase,
        workspace: LocalWorkspace | str | Path,
        *,
        persistence_dir: str | Path | None = None,
        conversation_id: uuid.UUID | None = None,
        callbacks: Sequence[Callback] | None = None,
        max_iteration_per_run: int = 500,
        hook_config: HookConfig | None = None,
        stuck_detection: bool = True,
    ) -> None:
        if max_iteration_per_run < 1:
            raise ValueError("max_iteration_per_run must be >= 1")
        if not isinstance(workspace, LocalWorkspace):
            workspace = LocalWorkspace(working_dir=str(workspace))
        workspace.ensure_exists()
        cid = conversation_id or uuid.uuid4()
        persist = str(persistence_dir) if persistence_dir is not None else None

        state = ConversationState.load(persist, cid) if persist else None
        if state is None:
            state = ConversationState(
                id=cid,
                agent=agent,
                workspace=workspace,
                max_iterations=max_iteration_per_run,
                hook_config=hook_config,
                persistence_dir=persist,
            )
        else:
            # The caller's agent wins: it holds the live LLM (and its key), which disk never does.
            state.agent = agent
            state.max_iterations = max_iteration_per_run
            state.hook_config = hook_config or state.hook_config
            if state.execution_status == Status.RUNNING:
                # The process that ran it died; nothing is running now.
                state.execution_status = Status.IDLE
        self._state = state
        self._callbacks: list[Callback] = list(callbacks or [])
        self._pause_requested = threading.Event()
        self._run_lock = threading.Lock()
        self._closed = False
        self.stuck_detection = stuck_detection

        context = ToolContext(
            working_dir=state.workspace.working_dir,
            persistence_dir=str(state.folder) if state.folder else None,
            conversation_id=cid.hex,
        )
        self.tools: dict[str, ToolDefinition] = agent.init_tools(context)
        self.tool_schemas = [tool.to_openai_tool() for tool in self.tools.values()]
        self.hook_runner = HookRunner(state.hook_config, state.workspace.working_dir)
        state.save()
        if len(state.events) == 0:
            self._emit(
                SystemPromptEvent(
                    system_prompt=TextContent(text=agent.system_prompt), tools=self.tool_schemas
                )
            )

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
    def workspace(self) -> LocalWorkspace:
        """Where the agent's tools run."""
        return self._state.workspace

    @property
    def is_running(self) -> bool:
        """True while `run()` is executing in some thread."""
        return self._run_lock.locked()

    def append_event(self, event: Event) -> None:
        """Append an event from outside the agent (e.g. a goal status update) and publish it."""
        self._emit(event)

    def add_callback(self, callback: Callback) -> None:
        """Call `callback(event)` for every event appended from now on."""
        self._callbacks.append(callback)

    def send_message(self, message: str | Message) -> None:
        msg = as_user_message(message)
        hook = self.hook_runner.run(HookEventType.USER_PROMPT_SUBMIT, {"prompt": msg.text})
        if hook.blocked:
            raise UserPromptBlockedError(hook.feedback)
        with self._state.lock:
            if self._state.title is None and msg.text.strip():
                self._state.title = msg.text.strip().splitlines()[0][:80]
            self._emit(MessageEvent(source="user", llm_message=msg))
            if self._state.execution_status in (Status.FINISHED, Status.ERROR, Status.STUCK):
                self._set_status(Status.IDLE)

    def run(self) -> None:
        if not self._run_lock.acquire(blocking=False):
            raise ConversationAlreadyRunningError(
                f"Conversation {self.id} is already running; pause it or wait for it to finish."
            )
        try:
            self._pause_requested.clear()
            self._set_status(Status.RUNNING)
            self._run_loop()
        finally:
            self._run_lock.release()

    def pause(self) -> None:
        with self._state.lock:
            self._pause_requested.set()
            self._emit(PauseEvent())
            if not self.is_running and self._state.execution_status != Status.PAUSED:
                self._set_status(Status.PAUSED)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._pause_requested.set()
        for tool in self.tools.values():
            try:
                tool.close()
            except Exception:
                logger.exception("closing tool %s failed", tool.name)
        self._state.save()
        self._state.close()

    # -- the run loop -------------------------------------------------------------------------

    def _run_loop(self) -> None:
        steps = 0
        while True:
            if self._pause_requested.is_set():
                self._set_status(Status.PAUSED)
                return
            if steps >= self._state.max_iterations:
                self._fail(
                    "MaxIterationsReached",
                    f"The agent took {steps} steps without finishing (max_iteration_per_run).",
                )
            try:
                wants_to_finish = self._state.agent.step(self, self._emit)
            except Exception as exc:
                self._fail(type(exc).__name__, str(exc) or repr(exc), cause=exc)
            steps += 1
            if wants_to_finish:
                if self._stop_denied():
                    continue
                self._set_status(Status.FINISHED)
                return
            if self.stuck_detection and self._is_stuck():
                self._emit(
                    ConversationErrorEvent(
                        code="Stuck",
                        detail="The agent repeated the same action with the same result.",
                    )
                )
                self._set_status(Status.STUCK)
                return

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

    def _fail(self, code: str, detail: str, cause: BaseException | None = None) -> None:
        self._emit(ConversationErrorEvent(code=code, detail=detail))
        self._set_status(Status.ERROR)
        raise ConversationRunError(self.id, code, detail) from cause

    # -- events and status --------------------------------------------------------------------

    def _emit(self, event: Event) -> None:
        """Persist `event` (fsynced when on disk), then hand it to every callback."""
        self._state.append_event(event)
        for callback in self._callbacks:
            try:
                callback(event)
            except Exception:
                logger.exception("conversation %s: callback failed on %s", self.id, event.kind)

    def _set_status(self, status: Status) -> None:
        with self._state.lock:
            if self._state.execution_status == status:
                return
            self._state.execution_status = status
            self._state.save()
            self._emit(ConversationStateUpdateEvent(key="execution_status", value=status.value))
