"""Event logs: the append-only history of a conversation, in memory or on disk.

`FileEventLog` writes `events.jsonl`: one event per line, flushed and fsynced before
`append` returns, so an event that was published is on disk. A torn last line (a crash
mid-write) is dropped with a warning when the log is reopened.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

from openhands.sdk.event.base import Event, UnknownEventKindError
from pydantic import ValidationError

logger = logging.getLogger(__name__)

EVENTS_FILE = "events.jsonl"


@runtime_checkable
class EventLog(Protocol):
    """The contract every event log keeps: append, read a range, length."""

    def append(self, event: Event) -> None:
        """Store `event` durably (for logs that persist) before returning."""
        ...

    def read(self, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events with index in [start, stop)."""
        ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[Event]: ...


class InMemoryEventLog:
    """An event log kept only in memory."""

    def __init__(self) -> None:
        self._events: list[Event] = []
        self._ids: dict[str, int] = {}
        self._lock = threading.Lock()

    def append(self, event: Event) -> None:
        """Append `event`."""
        with self._lock:
            self._ids[event.id] = len(self._events)
            self._events.append(event)

    def read(self, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events with index in [start, stop)."""
        return self._events[start:stop]

    def index_of(self, event_id: str) -> int | None:
        """Position of the event with `event_id`, or None."""
        return self._ids.get(event_id)

    def get(self, event_id: str) -> Event | None:
        """The event with `event_id`, or None."""
        index = self._ids.get(event_id)
        return None if index is None else self._events[index]

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        return iter(list(self._events))

    def __getitem__(self, index: int) -> Event:
        return self._events[index]


class FileEventLog(InMemoryEventLog):
    """An event log backed by `<folder>/events.jsonl`, also kept in memory for reads."""

    def __init__(self, folder: str | Path) -> None:
        super().__init__()
        self.path = Path(folder) / EVENTS_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._load()
        self._file = open(self.path, "ab")  # noqa: SIM115  (kept open for appends)

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        good_bytes = 0
        for number, line in enumerate(lines, start=1):
            is_last = number == len(lines)
            if not line.strip():
                good_bytes += len(line) + (0 if is_last else 1)
                continue
            try:
                event = Event.model_validate_json(line)
            except (ValidationError, ValueError, UnknownEventKindError) as exc:
                if number >= len(lines) - 1:
                    logger.warning(
                        "Dropping a torn last line of %s (a crash mid-write?): %s",
                        self.path,
                        str(exc).splitlines()[0],
                    )
                    break
                raise ValueError(f"{self.path}:{number} is not a valid event: {exc}") from exc
            super().append(event)
            good_bytes += len(line) + (0 if is_last else 1)
        if good_bytes < len(data):
            # Cut the torn tail so the next append starts on a clean line.
            with open(self.path, "r+b") as handle:
                handle.truncate(good_bytes)
        elif data and not data.endswith(b"\n"):
            with open(self.path, "ab") as handle:
                handle.write(b"\n")

    def append(self, event: Event) -> None:
        """Write `event` as one line, flush and fsync, then keep it in memory."""
        line = event.model_dump_json().encode() + b"\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()
            os.fsync(self._file.fileno())
            self._ids[event.id] = len(self._events)
            self._events.append(event)

    def close(self) -> None:
        """Close the underlying file."""
        with self._lock:
            if not self._file.closed:
                self._file.close()
