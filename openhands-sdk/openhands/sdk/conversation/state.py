"""`ConversationState`: a conversation's configuration, the state derived from its events, and
its event log.

On disk (`persistence_dir` is the conversation's own folder, `<base>/<id.hex>`):

- `events.jsonl` is the history and the source of truth for everything that changes while
  the conversation works: the execution status, the LLM usage (`stats`) and any other
  `ConversationStateUpdateEvent` key (a goal's status, ...) are the newest update of each key.
  Appending an event costs one fsync and nothing else.
- `base_state.json` holds the configuration (agent without secrets, workspace, limits, hook
  config, title, creation time), rewritten atomically only when it changes, plus a snapshot of
  the derived values as of `events_size` bytes of the log, taken with any such rewrite and
  when the conversation is closed. Reopening reads the snapshot and folds in only the updates
  appended after it (`snapshot.read_snapshot`), so it costs what the last session wrote, not
  the whole history; the events themselves are parsed on first read.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
import uuid
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from openhands.sdk.agent.agent import Agent, AgentBase
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.errors import ConversationStateError
from openhands.sdk.conversation.event_log import (
    EventLog,
    FileEventLog,
    InMemoryEventLog,
)
from openhands.sdk.conversation.snapshot import (
    BASE_STATE_FILE,
    EVENTS_SIZE_KEY,
    STATS_KEY,
    STATUS_KEY,
    invalid_state_error,
    read_snapshot,
)
from openhands.sdk.event.base import Event
from openhands.sdk.event.state import ConversationStateUpdateEvent
from openhands.sdk.event.to_messages import MessageHistory
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.io import write_atomic
from openhands.sdk.llm.message import Message
from openhands.sdk.llm.metrics import Metrics
from openhands.sdk.workspace.local import LocalWorkspace
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)


class ConversationExecutionStatus(StrEnum):
    """Where a conversation is in its life cycle."""

    IDLE = "idle"
    RUNNING = "running"
    PAUSED = "paused"
    WAITING_FOR_CONFIRMATION = "waiting_for_confirmation"
    FINISHED = "finished"
    ERROR = "error"
    STUCK = "stuck"

    @property
    def is_terminal(self) -> bool:
        """True for statuses that end a run (finished, error, stuck, paused)."""
        return self in (
            ConversationExecutionStatus.FINISHED,
            ConversationExecutionStatus.ERROR,
            ConversationExecutionStatus.STUCK,
            ConversationExecutionStatus.PAUSED,
        )


def _now() -> datetime:
    return datetime.now(UTC)


class ConversationState(BaseModel):
    """One conversation's configuration and derived state (`base_state.json`) and its log."""

    model_config = ConfigDict(defer_build=True, extra="ignore", arbitrary_types_allowed=True)

    # -- configuration: base_state.json is rewritten when one of these changes ------------------
    id: uuid.UUID
    agent: AgentBase = Field(description="Any AgentBase in memory; read from JSON as an Agent.")
    workspace: LocalWorkspace
    persistence_dir: str | None = Field(
        default=None,
        exclude=True,
        description="This conversation's own folder (`<base>/<id.hex>`); None: in memory only.",
    )
    max_iterations: int = Field(default=500, ge=1, description="Agent steps allowed per run.")
    stuck_detection: bool = Field(default=True, description="End a run that repeats itself.")
    hook_config: HookConfig | None = None
    title: str | None = None
    created_at: datetime = Field(default_factory=_now)

    # -- derived from the event log (base_state.json keeps a snapshot) --------------------------
    execution_status: ConversationExecutionStatus = ConversationExecutionStatus.IDLE
    stats: ConversationStats = Field(
        default_factory=ConversationStats, description="LLM usage per usage_id."
    )
    state_updates: dict[str, Any] = Field(
        default_factory=dict,
        description="The newest value of every other ConversationStateUpdateEvent key "
        "(e.g. 'goal').",
    )
    updated_at: datetime = Field(default_factory=_now, description="When the last event was.")

    # One private attribute holding plain objects: pydantic's private-attribute lookup is slow
    # and these are read several times per agent step.
    _live: _Live = PrivateAttr()

    @field_validator("agent", mode="before")
    @classmethod
    def _agent_from_json(cls, value: Any) -> Any:
        # A bare AgentBase cannot step; persisted agents are the standard Agent.
        return Agent.model_validate(value) if isinstance(value, dict) else value

    @model_validator(mode="before")
    @classmethod
    def _legacy_metrics(cls, data: Any) -> Any:
        # Older files kept `metrics: {usage_id: Metrics}` instead of `stats`.
        if isinstance(data, dict) and "stats" not in data and isinstance(data.get("metrics"), dict):
            data = {**data, "stats": {"usage_to_metrics": data["metrics"]}}
        return data

    def model_post_init(self, __context: Any) -> None:
        folder = self.folder
        self._live = _Live(FileEventLog(folder) if folder is not None else InMemoryEventLog())
        self._live.logged_status = self.execution_status

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        id: uuid.UUID,
        agent: AgentBase | None,
        workspace: LocalWorkspace | None = None,
        persistence_dir: str | Path | None = None,
        max_iterations: int | None = None,
        stuck_detection: bool | None = None,
        hook_config: HookConfig | None = None,
    ) -> ConversationState:
        """Reopen the conversation persisted in `persistence_dir`, or create it there.

        `persistence_dir` is the conversation's own folder (None keeps it in memory). When
        reopening, every argument given replaces the stored value (the caller's agent carries
        the live LLM and its key, which disk never does) and None keeps the stored one; a
        changed configuration is saved. Creating needs `agent` and `workspace`.

        Raises `ConversationStateError` if the stored state cannot be read and
        `StorageError` if the disk refuses.
        """
        folder = Path(persistence_dir) if persistence_dir is not None else None
        stored = read_snapshot(folder) if folder is not None else None
        if stored is not None:
            data, snapshot_text = stored
            state = _validate(folder, data)
            if state.id != id:
                raise ConversationStateError(
                    f"{folder} holds conversation {state.id}, not {id}; open it with its own "
                    "id, or remove that folder to start over."
                )
            state._live.saved = snapshot_text
            state._live.saved_config = state.model_dump_json(include=_CONFIG_FIELDS)
            changes: dict[str, Any] = {
                "agent": agent,
                "workspace": workspace,
                "max_iterations": max_iterations,
                "stuck_detection": stuck_detection,
                "hook_config": hook_config,
            }
            for name, value in changes.items():
                if value is not None:
                    setattr(state, name, value)
            state.stats.register_llm(state.agent.llm)
            state.save_config()
            return state
        if agent is None or workspace is None:
            raise ValueError(
                f"Conversation {id} is not stored in {folder}: creating it needs an agent and a "
                "workspace (or pass the persistence_dir and id it was saved under)."
            )
        new_folder = folder is not None and not folder.exists()
        try:
            state = cls(
                id=id,
                agent=agent,
                workspace=workspace,
                persistence_dir=str(folder) if folder is not None else None,
                max_iterations=500 if max_iterations is None else max_iterations,
                stuck_detection=True if stuck_detection is None else stuck_detection,
                hook_config=hook_config,
            )
            state._live.created_folder = new_folder
            state.stats.register_llm(agent.llm)
            state.save()
        except BaseException:
            if new_folder and folder is not None:
                shutil.rmtree(folder, ignore_errors=True)  # a failed creation leaves nothing
            raise
        return state

    # -- persistence --------------------------------------------------------------------------

    @property
    def folder(self) -> Path | None:
        """This conversation's folder (`persistence_dir` as a Path), or None in memory."""
        return None if self.persistence_dir is None else Path(self.persistence_dir)

    @property
    def metrics(self) -> dict[str, Metrics]:
        """The metrics of each LLM by usage_id (the same objects as `stats.usage_to_metrics`)."""
        return self.stats.usage_to_metrics

    def save(self) -> None:
        """Write `base_state.json` (configuration and snapshot) if anything in it changed.

        Called when the configuration changes and when the conversation is closed; never for
        a status change (those are events). Atomic: a failure raises `StorageError` and
        leaves the previous file as it was.
        """
        self._save(force_snapshot=True)

    def save_config(self) -> None:
        """Write `base_state.json` only if the configuration changed since it was last written."""
        self._save(force_snapshot=False)

    def _save(self, *, force_snapshot: bool) -> None:
        folder = self.folder
        if folder is None:
            return
        live = self._live
        with live.lock:
            config = self.model_dump_json(include=_CONFIG_FIELDS)
            if not force_snapshot and config == live.saved_config:
                return
            size = live.events.size if isinstance(live.events, FileEventLog) else 0
            payload = self._base_state_json(size)
            if payload == live.saved:
                return
            write_atomic(folder / BASE_STATE_FILE, payload)
            live.saved, live.saved_config = payload, config

    def _base_state_json(self, events_size: int) -> str:
        """What `base_state.json` holds: the model (no secrets) plus the snapshot's extent.

        The snapshot's status is the log's: a status only held in memory (a run whose end the
        disk refused to record) must not hide from a reopen that the log says `running`.
        """
        data = self.model_dump(mode="json")
        data[STATUS_KEY] = self._live.logged_status.value
        data[EVENTS_SIZE_KEY] = events_size
        return json.dumps(data, indent=2)

    def discard(self) -> None:
        """Close the log and delete the folder if this state created it (a failed creation).

        A conversation that existed before is never deleted.
        """
        self.close()
        folder = self.folder
        if folder is not None and self._live.created_folder:
            shutil.rmtree(folder, ignore_errors=True)

    # -- events -------------------------------------------------------------------------------

    @property
    def events(self) -> EventLog:
        """The conversation's event log (read it; append through the conversation)."""
        return self._live.events

    @property
    def lock(self) -> threading.RLock:
        """Guards status changes and appends; hold it for read-modify-write sequences."""
        return self._live.lock

    @property
    def has_events(self) -> bool:
        """True once any event was appended (answered without reading the log)."""
        return not self._live.events.is_empty

    def append_event(self, event: Event) -> None:
        """Persist `event` (fsynced for file logs), then fold it into the derived state.

        A `ConversationStateUpdateEvent` sets its key: `execution_status`, or an entry of
        `state_updates` (`stats` updates only record the live `stats`). Raises `StorageError`
        if the disk refuses; the state is then unchanged.
        """
        live = self._live
        with live.lock:
            live.events.append(event)
            if isinstance(event, ConversationStateUpdateEvent):
                self._apply_update(event.key, event.value)
            self.updated_at = event.timestamp

    def _apply_update(self, key: str, value: Any) -> None:
        if key == STATUS_KEY:
            # A status this version does not know stays in the log; the state ignores it.
            with contextlib.suppress(ValueError):
                self.execution_status = ConversationExecutionStatus(value)
                self._live.logged_status = self.execution_status
        elif key != STATS_KEY:
            self.state_updates[key] = value

    def llm_messages(self) -> list[Message]:
        """The LLM message list for the events so far, converting only new events."""
        live = self._live
        with live.lock:
            total = len(live.events)
            if total > live.history_upto:
                live.history.extend(live.events.read(live.history_upto, total))
                live.history_upto = total
            return live.history.messages

    def close(self) -> None:
        """Release the event log's file."""
        self._live.events.close()


_CONFIG_FIELDS: set[str] = {
    "id",
    "agent",
    "workspace",
    "max_iterations",
    "stuck_detection",
    "hook_config",
    "title",
    "created_at",
}
"""The fields whose change rewrites base_state.json (the others are derived from events)."""


def _validate(folder: Path | None, data: dict[str, Any]) -> ConversationState:
    try:
        return ConversationState.model_validate(data)
    except ValidationError as exc:
        raise invalid_state_error((folder or Path(".")) / BASE_STATE_FILE, exc) from exc


class _Live:
    """The in-memory side of a state: its event log, lock, message history and what is saved."""

    __slots__ = (
        "created_folder",
        "events",
        "history",
        "history_upto",
        "lock",
        "logged_status",
        "saved",
        "saved_config",
    )

    def __init__(self, events: FileEventLog | InMemoryEventLog) -> None:
        self.events = events
        self.lock = threading.RLock()
        self.history = MessageHistory()
        self.history_upto = 0
        self.saved: str | None = None  # the base_state.json text last written or read
        self.saved_config: str | None = None  # its configuration part, as JSON
        self.created_folder = False  # this process created the conversation's folder
        self.logged_status = ConversationExecutionStatus.IDLE  # the log's newest status
