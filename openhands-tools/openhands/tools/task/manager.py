"""`TaskManager`: runs sub-agent conversations for the delegating tools; resumes them by task_id.

Sub-agents are looked up by name in the SDK's agent registry (`resolve_subagent`). An agent's
definition may set its conversation's `hooks` and `max_iteration_per_run` (which then wins
over the manager's `max_iterations`). A `visualizer` given to `start`/`resume` (usually the
parent visualizer's `create_sub_visualizer(label)`) is shown every event of that task's
sub-conversation.

The sub-agent's LLM: an `llm` given to the manager wins; otherwise each call passes one (the
task tool passes the parent conversation's `agent.llm`, the same object, so sub-agent costs
land in the parent's metrics and budgets, and a scripted TestLLM serves both in call order).

With a `persistence_dir` (the parent conversation's folder), sub-conversations are stored in
`<persistence_dir>/subagents/<conversation_id>/` and the task index in
`<persistence_dir>/subagents/task_index.json`; a finished run's conversation is closed
(evicted from memory) and a resume reopens it from disk, so a manager in a new process can
resume any task in the index. Without one, nothing touches disk and sub-conversations stay
in memory until `close()`.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path

from openhands.sdk.agent import AgentBase
from openhands.sdk.conversation import (
    ConversationExecutionStatus,
    ConversationRunError,
    LocalConversation,
    load_conversation_summary,
)
from openhands.sdk.conversation.visualizer import ConversationVisualizerBase
from openhands.sdk.errors import InvalidArgumentError, OpenHandsError
from openhands.sdk.event import ActionEvent, ConversationErrorEvent, Event, MessageEvent
from openhands.sdk.llm import LLM
from openhands.sdk.subagent import AgentFactory
from openhands.tools.task.index import TaskIndex, TaskRecord, utc_now
from openhands.tools.task.subagents import DEFAULT_SUBAGENT_TYPE, resolve_subagent

logger = logging.getLogger(__name__)

SUBAGENTS_DIR = "subagents"
DEFAULT_MAX_ITERATIONS = 100


class TaskError(OpenHandsError, ValueError):
    """A task could not be started or resumed; the message says what to do instead."""


class UnknownTaskError(TaskError):
    """No task with that id exists in this manager or its index."""


class TaskBusyError(TaskError):
    """The task is running right now and cannot be resumed until it ends."""


class TaskManager:
    """Starts and resumes sub-agent tasks; thread-safe, one per parent conversation."""

    def __init__(
        self,
        working_dir: str,
        *,
        persistence_dir: str | Path | None = None,
        llm: LLM | None = None,
        max_iterations: int = DEFAULT_MAX_ITERATIONS,
    ) -> None:
        if max_iterations < 1:
            raise InvalidArgumentError("max_iterations must be >= 1")
        self.working_dir = str(working_dir)
        self.llm = llm
        self.max_iterations = max_iterations
        self.subagents_dir = Path(persistence_dir) / SUBAGENTS_DIR if persistence_dir else None
        self._index = TaskIndex(self.subagents_dir) if self.subagents_dir else None
        self._lock = threading.Lock()
        self._busy: set[str] = set()
        self._live: dict[str, LocalConversation] = {}
        self._visualizers: dict[str, ConversationVisualizerBase] = {}
        self._records: dict[str, TaskRecord] = {}
        self._closed = False
        if self._index is not None:
            for task_id, record in self._index.load().items():
                self._records[task_id] = _as_interrupted(record)

    # -- queries ------------------------------------------------------------------------------

    @property
    def persists(self) -> bool:
        """True when tasks are stored on disk (the parent conversation persists)."""
        return self._index is not None

    def get(self, task_id: str) -> TaskRecord | None:
        """The task's record, also looking in the index for tasks saved by other managers."""
        with self._lock:
            record = self._records.get(task_id)
        if record is None and self._index is not None:
            record = self._index.load().get(task_id)
            if record is not None:
                record = _as_interrupted(record)
                with self._lock:
                    record = self._records.setdefault(task_id, record)
        return record

    def tasks(self) -> list[TaskRecord]:
        """All tasks this manager knows, oldest first."""
        with self._lock:
            return sorted(self._records.values(), key=lambda record: record.created_at)

    # -- commands -----------------------------------------------------------------------------

    def start(
        self,
        prompt: str,
        *,
        description: str = "",
        subagent_type: str = DEFAULT_SUBAGENT_TYPE,
        llm: LLM | None = None,
        visualizer: ConversationVisualizerBase | None = None,
    ) -> TaskRecord:
        """Run a new sub-agent on `prompt` until it finishes; return the task's record.

        `UnknownSubagentTypeError` (a ValueError) if no agent has that name.
        """
        _require_prompt(prompt)
        recipe = resolve_subagent(subagent_type)
        agent = recipe.factory_func(self._choose_llm(llm))
        record = TaskRecord(
            id=f"task_{uuid.uuid4().hex[:12]}",
            status="running",
            conversation_id=uuid.uuid4().hex,
            description=description,
            subagent_type=recipe.definition.name,
        )
        with self._lock:
            self._require_open()
            self._records[record.id] = record
            self._busy.add(record.id)
            if visualizer is not None:
                self._visualizers[record.id] = visualizer
        self._save(record)
        return self._run(record, agent, recipe, prompt)

    def resume(
        self,
        task_id: str,
        prompt: str,
        *,
        llm: LLM | None = None,
        visualizer: ConversationVisualizerBase | None = None,
    ) -> TaskRecord:
        """Send `prompt` to an earlier task's sub-agent and run it again (same conversation)."""
        _require_prompt(prompt)
        record = self.get(task_id)
        if record is None:
            known = ", ".join(record.id for record in self.tasks()) or "none"
            raise UnknownTaskError(
                f"No task with id {task_id!r}. Known tasks: {known}. "
                "Omit `resume` to start a new task."
            )
        recipe = resolve_subagent(record.subagent_type)
        agent = recipe.factory_func(self._choose_llm(llm))
        if self.subagents_dir is not None:
            stored = load_conversation_summary(
                self.subagents_dir, uuid.UUID(hex=record.conversation_id)
            )
            if stored is None:
                raise TaskError(
                    f"Task {task_id!r} cannot be resumed: its conversation files are missing "
                    f"({self.subagents_dir / record.conversation_id}). Start a new task instead."
                )
        with self._lock:
            self._require_open()
            if task_id in self._busy:
                raise TaskBusyError(f"Task {task_id!r} is still running; wait for it to end.")
            if self.subagents_dir is None and task_id not in self._live:
                raise TaskError(f"Task {task_id!r} is no longer in memory; start a new task.")
            record = self._records[task_id].model_copy(
                update={"status": "running", "error": None, "updated_at": utc_now()}
            )
            self._records[task_id] = record
            self._busy.add(task_id)
            if visualizer is not None:
                self._visualizers[task_id] = visualizer
        self._save(record)
        return self._run(record, agent, recipe, prompt)

    def evict(self, task_id: str) -> None:
        """Close a task's live sub-conversation (it stays resumable from disk if persisted)."""
        with self._lock:
            conversation = self._live.pop(task_id, None)
            record = self._records.get(task_id)
        if conversation is not None:
            conversation.close()
        if record is not None:
            self._save(record)

    def interrupt(self) -> None:
        """Ask every running sub-agent to stop after its current step (its task then fails
        with the status `paused`). A task whose conversation is still opening runs on."""
        with self._lock:
            running = [self._live[task_id] for task_id in self._busy if task_id in self._live]
        for conversation in running:
            conversation.pause()

    def close(self) -> None:
        """Close every live sub-conversation; the manager accepts no new tasks afterwards."""
        with self._lock:
            self._closed = True
            live, self._live = list(self._live.values()), {}
        for conversation in live:
            try:
                conversation.close()
            except Exception:
                logger.exception("closing sub-conversation %s failed", conversation.id)

    # -- running ------------------------------------------------------------------------------

    def _run(
        self, record: TaskRecord, agent: AgentBase, recipe: AgentFactory, prompt: str
    ) -> TaskRecord:
        conversation: LocalConversation | None = None
        update: dict[str, object]
        try:
            conversation = self._open(record, agent, recipe)
            first_new = len(conversation.state.events)
            conversation.send_message(prompt)
            conversation.run()
            events = conversation.state.events.read(first_new)
            status = conversation.state.execution_status
            final = final_message(events)
            if status == ConversationExecutionStatus.FINISHED:
                update = {"status": "completed", "result": final, "error": None}
            else:
                failure = next(
                    (e for e in reversed(events) if isinstance(e, ConversationErrorEvent)), None
                )
                reason = (
                    f"{failure.code}: {failure.detail}"
                    if failure is not None
                    else f"The sub-agent stopped with status {status.value!r}."
                )
                update = {"status": "error", "result": final, "error": reason}
        except ConversationRunError as exc:
            update = {"status": "error", "error": f"{exc.code}: {exc.detail}"}
        except Exception as exc:  # the parent agent must learn why, not crash
            logger.exception("task %s failed", record.id)
            update = {"status": "error", "error": f"{type(exc).__name__}: {exc}"}
        update["updated_at"] = utc_now()
        finished = record.model_copy(update=update)
        evict = conversation is not None and self.subagents_dir is not None
        with self._lock:
            self._records[record.id] = finished
            self._busy.discard(record.id)
            if evict:
                self._live.pop(record.id, None)
        if evict and conversation is not None:
            conversation.close()
        self._save(finished)
        return finished

    def _open(
        self, record: TaskRecord, agent: AgentBase, recipe: AgentFactory
    ) -> LocalConversation:
        with self._lock:
            live = self._live.get(record.id)
            visualizer = self._visualizers.get(record.id)
        if live is not None:
            return live
        definition = recipe.definition
        # The visualizer is fed as a callback so it sees every event from the system prompt
        # on; it learns the state (for its own look-ups) right after.
        conversation = LocalConversation(
            agent,
            self.working_dir,
            persistence_dir=self.subagents_dir,
            conversation_id=uuid.UUID(hex=record.conversation_id),
            callbacks=[visualizer.on_event] if visualizer is not None else None,
            max_iteration_per_run=definition.max_iteration_per_run or self.max_iterations,
            hook_config=definition.hooks,
        )
        if visualizer is not None:
            visualizer.initialize(conversation.state)
        with self._lock:
            self._live[record.id] = conversation
        return conversation

    def _choose_llm(self, llm: LLM | None) -> LLM:
        chosen = self.llm if self.llm is not None else llm
        if chosen is None:
            raise TaskError(
                "No LLM for the sub-agent: give TaskManager(llm=...) or pass llm= "
                "(the task tool passes the parent conversation's LLM)."
            )
        return chosen

    def _require_open(self) -> None:
        if self._closed:
            raise TaskError("The task manager was closed with its conversation.")

    def _save(self, record: TaskRecord) -> None:
        if self._index is None:
            return
        try:
            merged = self._index.save([record])
        except OSError:
            logger.exception("could not write the task index %s", self._index.path)
            return
        with self._lock:
            for task_id, other in merged.items():
                self._records.setdefault(task_id, _as_interrupted(other))


def final_message(events: Sequence[Event]) -> str | None:
    """The sub-agent's last word: its `finish` message or its last plain reply."""
    for event in reversed(events):
        if isinstance(event, ActionEvent) and event.tool_name == "finish":
            return str(getattr(event.action, "message", ""))
        if isinstance(event, MessageEvent) and event.source == "agent":
            return event.llm_message.text
    return None


def _require_prompt(prompt: str) -> None:
    if not prompt or not prompt.strip():
        raise TaskError("prompt must be a non-blank instruction for the sub-agent.")


def _as_interrupted(record: TaskRecord) -> TaskRecord:
    # A record read from disk as "running" belongs to a process that is gone (one process
    # owns a parent conversation at a time); it keeps its timestamp, so a newer save wins.
    if record.status != "running":
        return record
    return record.model_copy(
        update={"status": "error", "error": "Interrupted: the process running it stopped."}
    )
