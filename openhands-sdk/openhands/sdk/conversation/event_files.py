"""An opt-in per-event copy of the log, for readers that expect one JSON file per event.

`events.jsonl` is the conversation's log and the only source of truth: each event is written
there and fsynced before anyone sees it. Scripts written against the reference SDK, which
stores one file per event, may read `events/event-<index:05d>-<event id>.json` instead; with
`OH_EVENT_FILES=1` a persisted conversation keeps that copy, each file holding that event's
line of the log, brought up to date at the end of every run, at `close()` and when a fork is
created. It is off by default because it is not cheap: every event becomes one more inode
and one more data block to write back, which made a 1000-step run 2.6x slower here (see
docs/compatibility.md and docs/performance.md).

- nothing in this SDK reads it, and a failure to write it is logged and ignored;
- it lags the log during a run, and after a failure or a crash it is completed at the next
  update (files are never fsynced: after a power loss the newest may be short).
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from openhands.sdk.event.base import event_from_json
from openhands.sdk.io.private import PRIVATE_FILE_MODE, make_private_dir

__all__ = ["EVENTS_DIR", "EVENT_FILES_ENV", "EventFiles", "event_file_name", "event_files_enabled"]

logger = logging.getLogger(__name__)

EVENTS_DIR = "events"
EVENT_FILES_ENV = "OH_EVENT_FILES"
"""Set to 1 (or true/yes/on) to keep the per-event copy; unset or anything else: no copy."""

_NAME = re.compile(r"^event-(\d{5,})-[^/]+\.json$")
_LEADING_ID = re.compile(rb'^\{"kind":"[^"]*","id":"([^"]+)"')


def event_files_enabled() -> bool:
    """Whether persisted conversations keep the per-event copy (`OH_EVENT_FILES`, default off)."""
    value = os.environ.get(EVENT_FILES_ENV, "").strip().lower()
    return value in ("1", "true", "yes", "on")


def event_file_name(index: int, event_id: str) -> str:
    """The file name of the event at `index` of the log."""
    return f"event-{index:05d}-{event_id}.json"


class EventFiles:
    """Keeps `<folder>/events/` in step with the log at `log_path` (call `update`)."""

    def __init__(self, folder: Path, log_path: Path) -> None:
        self.dir = folder / EVENTS_DIR
        self._log_path = log_path
        self._offset: int | None = None  # bytes of the log copied; None: not checked yet
        self._index = 0  # index of the event starting at `_offset`
        self._warned = False

    def update(self, log_size: int) -> None:
        """Copy the events of the log's first `log_size` bytes that have no file yet.

        The first call in a process lists the folder and copies whatever an earlier process
        left out; later calls read only the bytes appended since. Never raises for I/O.
        """
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
            make_private_dir(self.dir)
            fd = os.open(path, flags, PRIVATE_FILE_MODE)
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
