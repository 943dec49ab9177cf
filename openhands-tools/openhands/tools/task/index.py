"""The task index: `task_id -> sub-conversation, status` in `subagents/task_index.json`.

File shape: `{"version": 1, "tasks": {"<task_id>": TaskRecord, ...}}`. Every save merges
with what is on disk (the newer `updated_at` wins per task) under a file lock (`filelock`),
then replaces the index atomically (`openhands.sdk.io.write_atomic`), so parallel saves
(threads or processes) never lose each other's updates and readers never see a torn file.
Loading never raises: a missing file is empty, a corrupt or wrongly shaped file is logged and
treated as empty, and bad entries are logged and skipped while good ones are kept.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from filelock import FileLock
from openhands.sdk.io import PRIVATE_FILE_MODE, make_private_dir, write_atomic
from pydantic import BaseModel, ConfigDict, Field, ValidationError

logger = logging.getLogger(__name__)

INDEX_FILE = "task_index.json"
LOCK_FILE = ".task_index.lock"
INDEX_VERSION = 1

TaskStatus = Literal["running", "completed", "error"]


def utc_now() -> datetime:
    """The current time, timezone-aware (UTC)."""
    return datetime.now(UTC)


class TaskRecord(BaseModel):
    """One sub-agent task: its sub-conversation, status and outcome."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1, description="The task_id the agent resumes the task with.")
    status: TaskStatus
    conversation_id: str = Field(min_length=1, description="The sub-conversation's id (hex).")
    description: str = ""
    subagent_type: str = "general-purpose"
    result: str | None = Field(default=None, description="The sub-agent's final message.")
    error: str | None = Field(default=None, description="Why the task failed, if it did.")
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)


class TaskIndex:
    """Reads and atomically writes the task index of one parent conversation."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.path = self.folder / INDEX_FILE
        self._lock = threading.Lock()

    def load(self) -> dict[str, TaskRecord]:
        """The records on disk; problems are logged and never raised."""
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            logger.warning("Ignoring unreadable task index %s: %s", self.path, exc)
            return {}
        try:
            data: Any = json.loads(raw)
        except json.JSONDecodeError as exc:
            logger.warning("Ignoring corrupt task index %s: %s", self.path, exc)
            return {}
        tasks = data.get("tasks") if isinstance(data, dict) else None
        if not isinstance(tasks, dict):
            logger.warning(
                "Ignoring task index %s: expected an object with a 'tasks' object, got %s",
                self.path,
                _describe(data),
            )
            return {}
        records: dict[str, TaskRecord] = {}
        for task_id, entry in tasks.items():
            record = self._parse_entry(task_id, entry)
            if record is not None:
                records[task_id] = record
        return records

    def save(self, records: Iterable[TaskRecord]) -> dict[str, TaskRecord]:
        """Merge `records` into the index on disk and write it atomically; return the merge.

        Raises `StorageError` (an OSError) if the disk refuses; the index is then unchanged.
        """
        make_private_dir(self.folder)
        # The file lock keeps two managers (threads or processes) from losing each other's
        # updates in their read-merge-write; the atomic replace alone already prevents tears.
        with self._lock, FileLock(self.folder / LOCK_FILE, mode=PRIVATE_FILE_MODE):
            merged = self.load()
            for record in records:
                current = merged.get(record.id)
                if current is None or record.updated_at >= current.updated_at:
                    merged[record.id] = record
            self._write(merged)
            return merged

    # -- internals ----------------------------------------------------------------------------

    def _parse_entry(self, task_id: Any, entry: Any) -> TaskRecord | None:
        if not isinstance(entry, dict):
            logger.warning(
                "Skipping task %r in %s: expected an object, got %s",
                task_id,
                self.path,
                _describe(entry),
            )
            return None
        try:
            record = TaskRecord.model_validate(entry)
        except ValidationError as exc:
            logger.warning("Skipping invalid task %r in %s: %s", task_id, self.path, exc)
            return None
        if record.id != task_id:
            logger.warning(
                "Skipping task %r in %s: its id field says %r", task_id, self.path, record.id
            )
            return None
        return record

    def _write(self, records: dict[str, TaskRecord]) -> None:
        payload = {
            "version": INDEX_VERSION,
            "tasks": {
                task_id: record.model_dump(mode="json") for task_id, record in records.items()
            },
        }
        write_atomic(self.path, json.dumps(payload, indent=2))


def _describe(value: Any) -> str:
    return "null" if value is None else type(value).__name__
