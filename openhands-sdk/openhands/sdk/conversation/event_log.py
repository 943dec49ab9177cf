"""Event logs: the append-only history of a conversation, in memory or on disk.

`FileEventLog` writes `events.jsonl`: one event per line, flushed and fsynced before
`append` returns, so an event that was published is on disk. A torn last line (a crash
mid-write) is dropped with a warning when the log is reopened, and cut from the file so the
next append starts on a clean line.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from openhands.sdk.contracts import EventLog
from openhands.sdk.errors import OpenHandsError
from openhands.sdk.event.base import Event, event_from_json

logger = logging.getLogger(__name__)

EVENTS_FILE = "events.jsonl"

__all__ = [
    "EVENTS_FILE",
    "EventLog",
    "EventLogClosedError",
    "EventLogCorruptError",
    "EventLogError",
    "FileEventLog",
    "InMemoryEventLog",
]


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

    def close(self) -> None:
        """Nothing to release for a log kept in memory."""

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        return iter(list(self._events))

    def __getitem__(self, index: int) -> Event:
        return self._events[index]


class EventLogError(OpenHandsError):
    """Base class of event log errors."""


class EventLogCorruptError(EventLogError, ValueError):
    """A line before the end of `events.jsonl` is not a valid event (the tail is tolerated)."""


class EventLogClosedError(EventLogError, RuntimeError):
    """An event was appended after the log was closed (the conversation was closed)."""


class FileEventLog(InMemoryEventLog):
    """An event log backed by `<folder>/events.jsonl`, also kept in memory for reads."""

    def __init__(self, folder: str | Path) -> None:
        super().__init__()
        self.path = Path(folder) / EVENTS_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        self._load()
        self._file = open(self.path, "ab")  # noqa: SIM115  (kept open for appends)
        if created:
            _fsync_dir(self.path.parent)  # the new file's directory entry is durable too

    def _load(self) -> None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return
        lines = data.split(b"\n")
        tail = lines.pop()  # b"" when the file ends with a newline, else an unfinished line
        events: list[Event] = []
        offset = 0  # where the current line starts
        for number, line in enumerate(lines, start=1):
            line_start, offset = offset, offset + len(line) + 1
            if not line or line.isspace():
                continue
            try:
                events.append(event_from_json(line))
            except ValueError as exc:  # ValidationError, JSONDecodeError, unknown kind
                if number == len(lines) and not tail.strip():
                    # A corrupt last line is what a crash mid-write leaves: keep the rest.
                    self._drop_tail(line_start, exc)
                    break
                raise EventLogCorruptError(
                    f"{self.path}:{number} is not a valid event ({_first_line(exc)}); "
                    "the log is damaged before its end: restore it or remove that line."
                ) from exc
        else:
            if tail.strip():
                try:
                    events.append(event_from_json(tail))
                except ValueError as exc:
                    self._drop_tail(len(data) - len(tail), exc)
                else:
                    # A complete event missing only its newline: end the line before appending.
                    with open(self.path, "ab") as handle:
                        handle.write(b"\n")
                        handle.flush()
                        os.fsync(handle.fileno())
            elif tail:
                self._drop_tail(len(data) - len(tail), None)
        self._ids = {event.id: index for index, event in enumerate(events)}
        self._events = events

    def _drop_tail(self, keep_bytes: int, exc: Exception | None) -> None:
        """Cut a torn last line so the next append starts on a clean line."""
        if exc is not None:
            logger.warning(
                "Dropping a torn last line of %s (a crash mid-write?): %s",
                self.path,
                _first_line(exc),
            )
        with open(self.path, "r+b") as handle:
            handle.truncate(keep_bytes)
            handle.flush()
            os.fsync(handle.fileno())

    def append(self, event: Event) -> None:
        """Write `event` as one line, flush and fsync, then keep it in memory."""
        line = event.model_dump_json().encode() + b"\n"
        with self._lock:
            if self._file.closed:
                raise EventLogClosedError(
                    f"Cannot append {event.kind} to {self.path}: the log is closed. "
                    "Reopen the conversation to continue it."
                )
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


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _fsync_dir(folder: Path) -> None:
    """Make a folder's entries (a new or renamed file) durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
