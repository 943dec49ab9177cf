"""`SummaryIndex`: what the server needs of every stored conversation at start-up, in one file.

Reading every conversation's `base_state.json` (and the log after it) at start-up costs about
0.2 ms each, 1 s or more for 5,000 conversations, most of it validating agent specs nobody
asked for yet. The index (`.summary-index.json` in the conversations folder) keeps, per
conversation, only what start-up and listings need before anything is opened (`StoredEntry`:
created_at, status, working directory, whether a dead server left it busy, the parent of a
child conversation and a worktree child's git folder) and the stamp of
the two files it was read from (inode, size and modification time of `base_state.json` and
`events.jsonl`, taken before they were read). Full summaries are read when a listing shows
them.

The index is a cache that is checked, never trusted: at start-up every indexed conversation
whose folder is listed is stamped again (two `stat` calls, no read), and one whose stamp
differs (written since, by this server before a kill -9 or by anything else), a folder the
index does not know (created, restored behind the server's back) or a damaged one is read as
before; a folder that is gone is dropped. A missing, unreadable or foreign index is read as
empty (every conversation is read, as without an index). The index is replaced atomically
(`write_atomic`), after a start-up that found it out of date and at shutdown, so a kill -9
while it is written leaves the previous one, which the stamps then correct.
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Literal, NamedTuple

from openhands.sdk.conversation import ConversationExecutionStatus, ConversationSummary
from openhands.sdk.conversation.event_log import EVENTS_FILE
from openhands.sdk.conversation.goal.status import left_running
from openhands.sdk.conversation.snapshot import BASE_STATE_FILE
from openhands.sdk.io import write_atomic
from pydantic import BaseModel, ValidationError

logger = logging.getLogger(__name__)

INDEX_FILE = ".summary-index.json"
"""The index, in the conversations folder (hidden from listings: not a conversation id)."""

INDEX_VERSION = 3

Status = ConversationExecutionStatus

FileStamp = tuple[int, int, int]
"""A file as `stat` saw it: inode, size, modification time (ns)."""

Stamp = tuple[FileStamp | None, FileStamp | None]
"""A conversation's files as `stat` saw them: `base_state.json`, `events.jsonl` (None: none)."""


class StoredEntry(NamedTuple):
    """What the server knows of a stored conversation without reading its files (a named
    tuple: thousands are made at start-up)."""

    id: uuid.UUID
    created_at: datetime
    execution_status: Status
    working_dir: str
    created_workspace: bool
    left_busy: bool
    """A dead server left it running, or its goal running: it is opened at start-up."""
    stamp: Stamp
    """Its files when the entry was made (taken before they were read)."""
    parent_conversation_id: uuid.UUID | None = None
    """The conversation that started it (a child's link), for `sub_conversation_ids`."""
    worktree_git_dir: str | None = None
    """Git's folder for the worktree the server made for it (its sandbox may use it)."""

    @classmethod
    def of(cls, summary: ConversationSummary, stamp: Stamp) -> StoredEntry:
        """The entry of a summary read after `stamp` was taken."""
        return cls(
            id=summary.id,
            created_at=summary.created_at,
            execution_status=summary.execution_status,
            working_dir=summary.workspace.working_dir,
            created_workspace=summary.created_workspace,
            left_busy=summary.execution_status == Status.RUNNING or left_running(summary.goal),
            stamp=stamp,
            parent_conversation_id=summary.parent_conversation_id,
            worktree_git_dir=summary.worktree_git_dir,
        )


_Row = tuple[
    str, str, Status, str, bool, bool, FileStamp | None, FileStamp | None, str | None, str | None
]
"""An entry as the file holds it: id (hex), created_at (ISO 8601), status, working directory,
created_workspace, left_busy, the two file stamps, the parent's id (hex) and the worktree's
git folder. Arrays, not objects: 5,000 of them
validate in a few milliseconds."""


class _IndexFile(BaseModel):
    """The index file: a version and the entries."""

    version: Literal[3]
    entries: list[_Row]


def stamp_of(folder: str) -> Stamp:
    """The stamp of the conversation in `folder` (a path string: no pathlib per call)."""
    return _file_stamp(f"{folder}/{BASE_STATE_FILE}"), _file_stamp(f"{folder}/{EVENTS_FILE}")


def _file_stamp(path: str) -> FileStamp | None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


def read_index(persistence_dir: Path) -> dict[uuid.UUID, StoredEntry]:
    """The entries of the index (none when it is missing, unreadable or of another version)."""
    path = persistence_dir / INDEX_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        logger.warning(
            "The conversation index %s cannot be read (%s); reading every one", path, exc
        )
        return {}
    try:
        rows = _IndexFile.model_validate_json(data).entries
        return {entry.id: entry for entry in map(_entry, rows)}
    except (ValidationError, ValueError) as exc:
        first = str(exc).splitlines()[0]
        logger.warning("The conversation index %s is not usable (%s); rebuilding it", path, first)
        return {}


def _entry(row: _Row) -> StoredEntry:
    """An entry read from the file (ValueError for an id or a time that is not one)."""
    hex_id, created_at, status, working_dir, created_workspace, left_busy, base, events = row[:8]
    parent, git_dir = row[8], row[9]
    return StoredEntry(
        id=uuid.UUID(hex=hex_id),
        created_at=datetime.fromisoformat(created_at),
        execution_status=status,
        working_dir=working_dir,
        created_workspace=created_workspace,
        left_busy=left_busy,
        stamp=(base, events),
        parent_conversation_id=None if parent is None else uuid.UUID(hex=parent),
        worktree_git_dir=git_dir,
    )


def write_index(persistence_dir: Path, entries: Iterable[StoredEntry]) -> None:
    """Replace the index with `entries` (atomically: a crash leaves the previous one)."""
    rows: list[_Row] = [
        (
            e.id.hex,
            e.created_at.isoformat(),
            e.execution_status,
            e.working_dir,
            e.created_workspace,
            e.left_busy,
            *e.stamp,
            None if e.parent_conversation_id is None else e.parent_conversation_id.hex,
            e.worktree_git_dir,
        )
        for e in entries
    ]
    payload = _IndexFile(version=INDEX_VERSION, entries=rows).model_dump_json()
    write_atomic(persistence_dir / INDEX_FILE, payload)


def check_index(
    persistence_dir: Path, ids: list[uuid.UUID], index: dict[uuid.UUID, StoredEntry]
) -> tuple[list[StoredEntry], list[uuid.UUID]]:
    """Split the listed conversations `ids`: index entries whose stamp still holds, and the
    ids to read (not indexed, or written since)."""
    root = os.fspath(persistence_dir)
    current: list[StoredEntry] = []
    to_read: list[uuid.UUID] = []
    for conversation_id in ids:
        entry = index.get(conversation_id)
        if entry is not None and stamp_of(f"{root}/{conversation_id.hex}") == entry.stamp:
            current.append(entry)
        else:
            to_read.append(conversation_id)
    return current, to_read


def remove_index_leftovers(persistence_dir: Path) -> None:
    """Remove temp files an index write cut short by a crash left behind."""
    prefix = f"{INDEX_FILE}."
    try:
        names = [e.name for e in os.scandir(persistence_dir) if e.name.startswith(f".{prefix}")]
    except OSError:
        return
    for name in names:
        if name.endswith(".tmp"):
            with contextlib.suppress(OSError):
                os.unlink(persistence_dir / name)
