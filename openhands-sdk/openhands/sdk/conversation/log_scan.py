"""Cheap reads of `events.jsonl` that do not parse every event.

`last_line` finds the final line of a log by reading backwards (the event log uses it to
repair a torn tail before appending). `scan_state_updates` collects the newest value of each
`ConversationStateUpdateEvent` key written after a given offset, parsing only those lines:
reopening or summarizing a conversation costs what was appended since its last snapshot,
not its whole history.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

__all__ = [
    "LogScan",
    "is_complete_json_object",
    "is_json_object",
    "last_line",
    "scan_state_updates",
]

STATE_UPDATE_PREFIX = b'{"kind":"ConversationStateUpdateEvent"'
"""How a state update's line starts: events are dumped with `kind` first (see event/base.py)."""

_CHUNK = 1 << 20
_TAIL_CHUNK = 1 << 16
_TIMESTAMP = re.compile(rb'"timestamp":"([^"]+)"')


@dataclass
class LogScan:
    """What a scan of a log found after its start offset."""

    start: int
    """Where the scan began (0 if the offset given did not fall on a line boundary)."""
    end: int
    """Where the last complete event ends (the scan ignores a torn last line)."""
    updates: dict[str, Any] = field(default_factory=dict)
    """The newest value of each state-update key seen, by key."""
    last_timestamp: str | None = None
    """The `timestamp` of the last event seen (ISO 8601), or None if there was none."""


def last_line(handle: BinaryIO, end: int) -> tuple[int, bytes]:
    """The last non-blank line before byte `end` (without its newline) and where it starts.

    Returns `(start, b"")` when there is only whitespace before `end`.
    """
    chunk = _TAIL_CHUNK
    while True:
        start = max(0, end - chunk)
        handle.seek(start)
        data = handle.read(end - start)
        content_end = len(data.rstrip())
        newline = data.rfind(b"\n", 0, content_end)
        if newline >= 0 or start == 0:
            line_start = start + newline + 1
            return line_start, data[newline + 1 : content_end]
        chunk *= 4


def scan_state_updates(path: str | Path, start: int = 0) -> LogScan:
    """Collect the state updates of `path` from byte `start` on (0: the whole log).

    A missing file scans as empty; a torn or unparsable line is skipped (the event log
    itself decides what to do with a torn tail when it is opened for writing).
    """
    try:
        handle = open(path, "rb")  # noqa: SIM115  (closed below)
    except FileNotFoundError:
        return LogScan(start=0, end=0)
    with handle:
        size = os.fstat(handle.fileno()).st_size
        if not 0 <= start <= size or (start and not _newline_before(handle, start)):
            start = 0  # the snapshot does not match this file: scan all of it
        scan = LogScan(start=start, end=start)
        handle.seek(start)
        buffer_start, pending = start, b""  # `pending` (a line not yet complete) starts there
        while chunk := handle.read(_CHUNK):
            buffer = pending + chunk
            complete = buffer.rfind(b"\n") + 1
            _collect(buffer, complete, scan)
            buffer_start += complete
            pending = buffer[complete:]
            scan.end = buffer_start
        if pending.strip() and is_json_object(pending):
            # A complete event missing only its newline still counts (the log keeps it).
            _collect(pending + b"\n", len(pending) + 1, scan)
            scan.end = buffer_start + len(pending)
        scan.last_timestamp = _last_timestamp(handle, scan)
    return scan


def _newline_before(handle: BinaryIO, offset: int) -> bool:
    handle.seek(offset - 1)
    return handle.read(1) == b"\n"


def _collect(buffer: bytes, end: int, scan: LogScan) -> None:
    """Record the state updates among the complete lines of `buffer[:end]`."""
    position = 0  # always the start of a line
    while position < end:
        if not buffer.startswith(STATE_UPDATE_PREFIX, position):
            found = buffer.find(b"\n" + STATE_UPDATE_PREFIX, position, end)
            if found < 0:
                return
            position = found + 1
        line_end = buffer.find(b"\n", position, end)
        if line_end < 0:
            return
        _record(buffer[position:line_end], scan)
        position = line_end + 1


def _record(line: bytes, scan: LogScan) -> None:
    try:
        data = json.loads(line)
    except ValueError:
        return
    if isinstance(data, dict) and isinstance(data.get("key"), str):
        scan.updates.pop(data["key"], None)  # keep the dict in the order values last changed
        scan.updates[data["key"]] = data.get("value")


def _last_timestamp(handle: BinaryIO, scan: LogScan) -> str | None:
    if scan.end <= scan.start:
        return None
    _, line = last_line(handle, scan.end)
    match = _TIMESTAMP.search(line, 0, 400)
    if match is not None:
        return match.group(1).decode()
    try:
        data = json.loads(line)
    except ValueError:
        return None
    value = data.get("timestamp") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def is_json_object(line: bytes) -> bool:
    """True if `line` is one complete JSON object (a torn write never is)."""
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def is_complete_json_object(line: bytes) -> bool:
    """True if `line` is a whole JSON object once bytes that are not UTF-8 are replaced: a
    line that was written completely and damaged later (a torn write is never whole)."""
    return is_json_object(line) or is_json_object(line.decode("utf-8", errors="replace").encode())
