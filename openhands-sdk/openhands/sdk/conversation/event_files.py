"""The per-event copy of the log, for readers that expect one JSON file per event.

`events.jsonl` is the conversation's log and the only source of truth: each event is written
there and fsynced before anyone sees it. Scripts written against the reference SDK, which
stores one file per event, read `events/event-<index:05d>-<event id>.json` instead, so a
persisted conversation also keeps that copy (on by default; `OH_EVENT_FILES=0` turns it off),
each file holding that event's line of the log.

Files cost one inode each, and creating 2000 of them at the end of a 1000-step run made the
run 2.6x slower. So they are written off the run's path: a background thread copies new
lines while the run goes on (batched, never fsynced, at low CPU priority), and the end of a
run, `close()` and a fork only wait for the few lines it has not copied yet; when the run
returns, the copy is complete. Nothing in this SDK reads it, a failure to write it is logged
and retried at the next update, and after a crash or a power loss it is completed (and short
files rewritten) when the conversation is next updated in a new process.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
import time
from collections import deque
from pathlib import Path

from openhands.sdk.event.base import event_from_json
from openhands.sdk.io.private import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE

__all__ = ["EVENTS_DIR", "EVENT_FILES_ENV", "EventFiles", "event_file_name", "event_files_enabled"]

logger = logging.getLogger(__name__)

EVENTS_DIR = "events"
EVENT_FILES_ENV = "OH_EVENT_FILES"
"""Set to 0 (or false/no/off) to keep no per-event copy; unset or anything else: the copy."""

BATCH_SECONDS = 0.05
"""How long the background copier lets new lines gather before it copies them."""

COPIER_NICE = 10
"""The copier thread's CPU niceness (Linux): the run's own thread comes first."""

_NAME = re.compile(r"^event-(\d{5,})-[^/]+\.json$")
_LEADING_ID = re.compile(rb'^\{"kind":"[^"]*","id":"([^"]+)"')


def event_files_enabled() -> bool:
    """Whether persisted conversations keep the per-event copy (`OH_EVENT_FILES`, default on)."""
    value = os.environ.get(EVENT_FILES_ENV, "").strip().lower()
    return value not in ("0", "false", "no", "off")


def event_file_name(index: int, event_id: str) -> str:
    """The file name of the event at `index` of the log."""
    return f"event-{index:05d}-{event_id}.json"


class EventFiles:
    """Keeps `<folder>/events/` in step with the log at `log_path`.

    `notify(size)` lets the background copier catch up with the log; `update(size)` copies
    up to `size` now, in the caller's thread (waiting for a copy under way); `close()` stops
    notifications.
    """

    def __init__(self, folder: Path, log_path: Path) -> None:
        self.folder = folder
        self.dir = folder / EVENTS_DIR
        self._log_path = log_path
        self._offset: int | None = None  # bytes of the log copied; None: not checked yet
        self._index = 0  # index of the event starting at `_offset`
        self._warned = False
        self._lock = threading.Lock()  # one copy at a time
        self._wanted = 0  # the log size the copier should reach
        self._closed = False

    def notify(self, log_size: int) -> None:
        """The log grew to `log_size`: copy the new lines in the background, soon."""
        if log_size > self._wanted:
            self._wanted = log_size
        if not self._closed:
            _copier().submit(self)

    def close(self) -> None:
        """Stop background copies (an `update` still works)."""
        self._closed = True

    def _background(self) -> None:
        if not self._closed:
            self.update(self._wanted)

    def update(self, log_size: int) -> None:
        """Copy the events of the log's first `log_size` bytes that have no file yet.

        The first call in a process lists the folder and copies whatever an earlier process
        left out; later calls read only the bytes appended since. Never raises for I/O.
        """
        with self._lock:
            self._update(log_size)

    def _update(self, log_size: int) -> None:
        try:
            if self._offset is None:
                present = self._present()
                self._offset, self._index = 0, 0
            else:
                present = None
            if log_size <= self._offset:
                return
            with open(self._log_path, "rb") as handle:
                handle.seek(self._offset)
                data = handle.read(log_size - self._offset)
            end = data.rfind(b"\n") + 1  # only complete lines
            for line in data[:end].split(b"\n")[:-1]:
                if present is None or self._index not in present:
                    self._write(self._index, line)
                self._index += 1
            self._offset += end
            self._warned = False
        except (OSError, ValueError) as exc:
            self._offset = None  # start over (with a listing) next time
            if not self._warned:
                self._warned = True
                logger.warning(
                    "Could not update the per-event copy in %s (events.jsonl is complete; "
                    "the copy is retried at the next update): %s",
                    self.dir,
                    exc,
                )

    def _present(self) -> set[int]:
        try:
            names = os.listdir(self.dir)
        except FileNotFoundError:
            return set()
        return {int(match.group(1)) for name in names if (match := _NAME.match(name)) is not None}

    def _write(self, index: int, line: bytes) -> None:
        match = _LEADING_ID.match(line)
        event_id = match.group(1).decode() if match is not None else event_from_json(line).id
        path = self.dir / event_file_name(index, event_id)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
        try:
            fd = os.open(path, flags, PRIVATE_FILE_MODE)
        except FileNotFoundError:
            # Only inside the conversation's folder: never bring back a deleted conversation.
            self.dir.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
            fd = os.open(path, flags, PRIVATE_FILE_MODE)
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)


class _Copier:
    """One daemon thread per process that runs `EventFiles._background` for notified copies."""

    def __init__(self) -> None:
        self._queue: deque[EventFiles] = deque()
        self._queued: set[int] = set()
        self._ready = threading.Condition()
        thread = threading.Thread(target=self._run, name="event-files", daemon=True)
        thread.start()

    def submit(self, files: EventFiles) -> None:
        with self._ready:
            if id(files) in self._queued:
                return
            self._queued.add(id(files))
            self._queue.append(files)
            self._ready.notify()

    def _run(self) -> None:
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), COPIER_NICE)
        while True:
            with self._ready:
                while not self._queue:
                    self._ready.wait()
            time.sleep(BATCH_SECONDS)  # let a run's next lines gather: fewer, larger copies
            with self._ready:
                batch = list(self._queue)
                self._queue.clear()
                self._queued.clear()
            for files in batch:
                try:
                    files._background()
                except Exception:  # a copy is a convenience: never let it kill the thread
                    logger.exception("per-event copy of %s failed", files.dir)


_copier_instance: _Copier | None = None
_copier_lock = threading.Lock()


def _copier() -> _Copier:
    global _copier_instance
    if _copier_instance is None:
        with _copier_lock:
            if _copier_instance is None:
                _copier_instance = _Copier()
    return _copier_instance
