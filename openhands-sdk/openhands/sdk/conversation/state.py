"""`ConversationState`: everything about a conversation except its events, plus the event log."""

from __future__ import annotations

import json
import os
import tempfile
import threading
import uuid
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from openhands.sdk.agent.agent import Agent, AgentBase
from openhands.sdk.conversation.errors import ConversationStateError
from openhands.sdk.conversation.event_log import EventLog, FileEventLog, InMemoryEventLog
from openhands.sdk.event.base import Event
from openhands.sdk.event.to_messages import MessageHistory
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.message import Message
from openhands.sdk.llm.metrics import Metrics
from openhands.sdk.workspace.local import LocalWorkspace
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

BASE_STATE_FILE = "base_state.json"


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
    """The persisted state of one conversation (`base_state.json`) and its event log."""

    model_config = ConfigDict(defer_build=True, extra="ignore", arbitrary_types_allowed=True)

    id: uuid.UUID
    agent: AgentBase = Field(description="Any AgentBase in memory; read from JSON as an Agent.")
    workspace: LocalWorkspace
    execution_status: ConversationExecutionStatus = ConversationExecutionStatus.IDLE
    max_iterations: int = Field(default=500, ge=1, description="Agent steps allowed per run.")
    hook_config: HookConfig | None = None
    title: str | None = None
    created_at: datetime = Field(default_factory=_now)
    updated_at: datetime = Field(default_factory=_now)
    metrics: dict[str, Metrics] = Field(default_factory=dict)
    persistence_dir: str | None = Field(default=None, exclude=True)

    # One private attribute holding plain objects: pydantic's private-attribute lookup is slow
    # and these are read several times per agent step.
    _live: _Live = PrivateAttr()

    @field_validator("agent", mode="before")
    @classmethod
    def _agent_from_json(cls, value: Any) -> Any:
        # A bare AgentBase cannot step; persisted agents are the standard Agent.
        return Agent.model_validate(value) if isinstance(value, dict) else value

    def model_post_init(self, __context: Any) -> None:
        folder = self.folder
        self._live = _Live(FileEventLog(folder) if folder is not None else InMemoryEventLog())

    # -- persistence --------------------------------------------------------------------------

    @property
    def folder(self) -> Path | None:
        """`<persistence_dir>/<id.hex>`, or None for an in-memory conversation."""
        if self.persistence_dir is None:
            return None
        return Path(self.persistence_dir) / self.id.hex

    @classmethod
    def load(
        cls, persistence_dir: str | Path, conversation_id: uuid.UUID
    ) -> ConversationState | None:
        """Read a persisted conversation, or None if it was never saved."""
        path = Path(persistence_dir) / conversation_id.hex / BASE_STATE_FILE
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError(f"expected a JSON object, got {type(data).__name__}")
            data["persistence_dir"] = str(persistence_dir)
            return cls.model_validate(data)
        except (ValueError, ValidationError) as exc:  # JSONDecodeError, UnicodeDecodeError too
            raise ConversationStateError(
                f"{path} is not a valid conversation state ({_reason(exc)}). Restore it from a "
                "backup, or remove that folder (or use another conversation_id) to start over."
            ) from exc

    def save(self) -> None:
        """Write `base_state.json` atomically (temp file, fsync, os.replace)."""
        folder = self.folder
        if folder is None:
            return
        with self._live.lock:
            self.updated_at = _now()
            # Only the agent's entry is refreshed: others (e.g. a goal judge's) are kept.
            llm = self.agent.llm
            self.metrics = {**self.metrics, llm.usage_id: llm.metrics.model_copy()}
            payload = self.model_dump_json(indent=2)
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".base_state.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(payload)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, folder / BASE_STATE_FILE)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def restore_metrics(self, llm: LLM) -> None:
        """Carry the saved usage of a reopened conversation into a fresh LLM object."""
        saved = self.metrics.get(llm.usage_id)
        live = llm.metrics
        if saved is None or live.completions:
            return  # nothing saved, or this LLM object already counted those calls itself
        live.accumulated_cost = saved.accumulated_cost
        live.prompt_tokens = saved.prompt_tokens
        live.completion_tokens = saved.completion_tokens
        live.completions = saved.completions

    # -- events -------------------------------------------------------------------------------

    @property
    def events(self) -> EventLog:
        """The conversation's event log (read it; append through the conversation)."""
        return self._live.events

    @property
    def lock(self) -> threading.RLock:
        """Guards status changes and appends; hold it for read-modify-write sequences."""
        return self._live.lock

    def append_event(self, event: Event) -> None:
        """Persist `event` (fsynced for file logs)."""
        live = self._live
        with live.lock:
            live.events.append(event)

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


def _reason(exc: Exception) -> str:
    """A one-line cause; for a validation error, the fields at fault."""
    if isinstance(exc, ValidationError):
        return "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'root'}: {error['msg']}"
            for error in exc.errors()[:3]
        )
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class _Live:
    """The in-memory side of a state: its event log, lock and incremental message history."""

    __slots__ = ("events", "history", "history_upto", "lock")

    def __init__(self, events: EventLog) -> None:
        self.events = events
        self.lock = threading.RLock()
        self.history = MessageHistory()
        self.history_upto = 0
