"""Event logs: the append-only history of a conversation, in memory or on disk.

`FileEventLog` writes `events.jsonl`: one event per line, written, flushed and fsynced
before `append` returns, so an event that was published is on disk. What it costs:

- No open file per log: each append borrows a descriptor from the process-wide
  `openhands.sdk.io.append_handles()` cache (least recently used closed first), so thousands
  of logs fit under `ulimit -n`.
- No read until needed: the events are parsed on the first read (`read`, `len`, iteration),
  so opening a conversation to append to it, or to look at its state, does not parse its
  history.
- A failed append (disk full, EIO, read-only) cuts the file back to its last complete line,
  keeps nothing in memory and raises `StorageError` (`StorageFullError` for a full disk); if
  even the cut fails, the log refuses every later append until it is reopened, so no append
  ever lands after a partial line.
- A torn last line (a crash mid-write) is cut, with a warning, before the first append or
  read after reopening; a complete last event missing only its newline gets one. A last
  line that is a whole JSON object but not valid UTF-8 was damaged after it was written: it
  raises `EventLogCorruptError` instead of being dropped as torn.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from openhands.sdk.contracts import EventLog
from openhands.sdk.conversation.log_scan import (
    is_complete_json_object,
    is_json_object,
    last_line,
)
from openhands.sdk.errors import OpenHandsError, StorageError, storage_error
from openhands.sdk.event.base import Event, event_from_json
from openhands.sdk.io import (
    PRIVATE_FILE_MODE,
    AppendHandles,
    append_handles,
    fsync_dir,
    make_private_dir,
)

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

    @property
    def is_empty(self) -> bool:
        """True when no event was appended yet."""
        return not self._events

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


class FileEventLog:
    """An event log backed by `<folder>/events.jsonl`, kept in memory once read."""

    def __init__(self, folder: str | Path, *, handles: AppendHandles | None = None) -> None:
        self.path = Path(folder) / EVENTS_FILE
        self._handles = handles if handles is not None else append_handles()
        self._lock = threading.Lock()
        self._events: list[Event] | None = None  # None until the first read
        self._ids: dict[str, int] = {}
        self._size: int | None = None  # end of the last complete line; None until checked
        self._closed = False
        self._refusal: str | None = None  # why appends are refused (a failed write stuck)
        try:
            make_private_dir(self.path.parent)
            if not self.path.exists():
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE_MODE))
                fsync_dir(self.path.parent)  # the new file's directory entry is durable too
        except OSError as exc:
            raise storage_error("create", self.path, exc) from exc

    # -- reading ------------------------------------------------------------------------------

    def read(self, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events with index in [start, stop)."""
        return self._loaded()[start:stop]

    def index_of(self, event_id: str) -> int | None:
        """Position of the event with `event_id`, or None."""
        self._loaded()
        return self._ids.get(event_id)

    def get(self, event_id: str) -> Event | None:
        """The event with `event_id`, or None."""
        events = self._loaded()
        index = self._ids.get(event_id)
        return None if index is None else events[index]

    def __len__(self) -> int:
        return len(self._loaded())

    def __iter__(self) -> Iterator[Event]:
        return iter(list(self._loaded()))

    def __getitem__(self, index: int) -> Event:
        return self._loaded()[index]

    @property
    def size(self) -> int:
        """Bytes of complete events in the file (after repairing a torn tail)."""
        with self._lock:
            return self._checked_size()

    @property
    def is_empty(self) -> bool:
        """True when no event was ever written (answered without reading the events)."""
        with self._lock:
            if self._events is not None:
                return not self._events
            return self._checked_size() == 0

    # -- writing ------------------------------------------------------------------------------

    def append(self, event: Event) -> None:
        """Write `event` as one line and fsync it; only then keep it in memory.

        Raises `StorageError` (`StorageFullError` when the disk is full) if the disk refuses
        the write: the file is then as it was before, and the event is not in the log.
        """
        line = event.model_dump_json().encode() + b"\n"
        with self._lock:
            if self._closed:
                raise EventLogClosedError(
                    f"Cannot append {event.kind} to {self.path}: the log is closed. "
                    "Reopen the conversation to continue it."
                )
            if self._refusal is not None:
                raise StorageError(self._refusal)
            start = self._checked_size()
            self._write(line, start)
            self._size = start + len(line)
            if self._events is not None:
                self._ids[event.id] = len(self._events)
                self._events.append(event)

    def close(self) -> None:
        """Release the file's descriptor; later appends raise, reads still work."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._handles.discard(self.path)

    # -- internals (called with the lock held) ------------------------------------------------

    def _write(self, line: bytes, start: int) -> None:
        try:
            with self._handles.use(self.path) as fd:
                try:
                    view = memoryview(line)
                    while view:
                        view = view[os.write(fd, view) :]
                    os.fsync(fd)
                except OSError as exc:
                    self._undo(fd, start, exc)
                    raise storage_error("append an event to", self.path, exc) from exc
        except StorageError:
            raise
        except OSError as exc:  # the file could not be opened
            raise storage_error("open for appending", self.path, exc) from exc

    def _undo(self, fd: int, start: int, cause: OSError) -> None:
        """Cut a failed write back to the last complete line, or refuse appends from now on."""
        try:
            os.ftruncate(fd, start)
            os.fsync(fd)
        except OSError as exc:
            self._refusal = (
                f"Appends to {self.path} are refused: a failed write ({cause.strerror}) could "
                f"not be undone ({exc.strerror}). Reopen the conversation once the disk is "
                "healthy; the partial line is dropped then and nothing acknowledged is lost."
            )
            self._handles.discard(self.path)
            logger.error("%s", self._refusal)

    def _checked_size(self) -> int:
        if self._size is None:
            try:
                self._size = self._repair_tail()
            except OSError as exc:
                raise storage_error("repair the end of", self.path, exc) from exc
        return self._size

    def _repair_tail(self) -> int:
        """Make the file end with a complete event line (or nothing); return its size.

        Only reads when the end is sound (a read-only disk can still be read).
        """
        try:
            with open(self.path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                line_start, line = last_line(handle, size)
                handle.seek(line_start + len(line))
                after_line = handle.read(1)
        except FileNotFoundError:
            return 0
        if not line:
            keep, newline = 0, False  # only whitespace: nothing worth keeping
        elif not is_json_object(line):
            if is_complete_json_object(line):
                # A crash mid-write never leaves a whole JSON object: this one was damaged
                # later (bytes that are not UTF-8). Dropping it would lose an event.
                raise EventLogCorruptError(
                    f"{self.path}: its last line (from byte {line_start}) is a complete event "
                    f"holding {_line_problem(line)}; the log was damaged after it was written, "
                    "not torn by a crash: restore it from a backup, or fix or remove that line."
                )
            # What a crash mid-write leaves: keep everything before it.
            logger.warning("Dropping a torn last line of %s (a crash mid-write?)", self.path)
            keep, newline = line_start, False
        elif after_line == b"\n":
            keep, newline = line_start + len(line) + 1, False
        else:  # a complete event missing only its newline
            keep, newline = line_start + len(line), True
        if keep == size and not newline:
            return size
        with open(self.path, "r+b") as handle:
            handle.truncate(keep)
            if newline:
                handle.seek(keep)
                handle.write(b"\n")
                keep += 1
            handle.flush()
            os.fsync(handle.fileno())
        return keep

    def _loaded(self) -> list[Event]:
        events = self._events
        if events is not None:
            return events
        with self._lock:
            if self._events is None:
                self._events = self._load()
                self._ids = {event.id: index for index, event in enumerate(self._events)}
            return self._events

    def _load(self) -> list[Event]:
        size = self._checked_size()
        try:
            with open(self.path, "rb") as handle:
                data = handle.read(size)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise storage_error("read", self.path, exc) from exc
        events: list[Event] = []
        for number, line in enumerate(data.split(b"\n"), start=1):
            if not line or line.isspace():
                continue
            try:
                events.append(event_from_json(line))
            except ValueError as exc:  # ValidationError, JSONDecodeError, unknown kind
                raise EventLogCorruptError(
                    f"{self.path}:{number} is not a valid event ({_first_line(exc)}); "
                    "the log is damaged before its end: restore it or remove that line."
                ) from exc
        return events


def _line_problem(line: bytes) -> str:
    """What is wrong with a complete line that does not parse, in a few words."""
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"bytes that are not UTF-8 (the first at offset {exc.start} of the line)"
    return "text that is not an event"


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
