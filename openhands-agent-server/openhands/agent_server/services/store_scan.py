"""`scan_store`: what a server finds in its conversations folder at start-up; and the index
written again at shutdown (`index_at_shutdown`).

The index (`summary_index.py`) answers for every conversation whose files have not changed
since it was written; only the others are read (a few control threads share that work, which
mostly waits for the disk). The folder is made private first, and what a crash left of a
creation or a fork among the unindexed folders is removed.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.services.catalog import BrokenConversation
from openhands.agent_server.services.storage import load_entries, prepare_folder, remove_trash
from openhands.agent_server.services.summary_index import (
    StoredEntry,
    check_index,
    read_index,
    remove_index_leftovers,
    write_index,
)
from openhands.sdk.conversation import list_conversation_ids

logger = logging.getLogger(__name__)

LOAD_THREADS = 4
"""Control threads reading summaries at start-up (at most OH_CONTROL_THREADS are used)."""


@dataclass
class StoreScan:
    """The stored conversations found, those found damaged, and the work left for later."""

    entries: list[StoredEntry]
    broken: list[BrokenConversation]
    read: int
    """How many conversations had to be read (not in the index, or written since)."""
    cleanups: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    """Background work to start: the index written again if it was out of date, leftovers
    removed."""


async def scan_store(path: Path, controls: BlockingPool) -> StoreScan:
    """Scan the conversations folder `path` with the index's help (blocking work in `controls`)."""
    index = await controls.run(read_index, path)
    known = frozenset(cid.hex for cid in index)
    for folder in await controls.run(prepare_folder, path, known):
        logger.warning(
            "Removed %s: a crash left it unfinished (a conversation being created or forked, "
            "with no history of its own)",
            folder,
        )
    ids = await controls.run(list_conversation_ids, path)
    entries, to_read = await controls.run(check_index, path, ids, index)
    parts = [to_read[start::LOAD_THREADS] for start in range(LOAD_THREADS)]
    loads = [controls.run(load_entries, path, part) for part in parts if part]
    broken: list[BrokenConversation] = []
    for part_entries, part_broken in await asyncio.gather(*loads):
        entries += part_entries
        broken += part_broken
    scan = StoreScan(entries=entries, broken=broken, read=len(to_read))
    if to_read or len(entries) != len(index):  # out of date: write it again
        scan.cleanups.append(functools.partial(controls.run, write_index, path, list(entries)))
    scan.cleanups.append(functools.partial(controls.run, remove_trash, path))
    scan.cleanups.append(functools.partial(controls.run, remove_index_leftovers, path))
    return scan


async def index_at_shutdown(
    path: Path, controls: BlockingPool, closed: list[uuid.UUID], stored: list[StoredEntry]
) -> None:
    """Write the index at shutdown: the `stored` entries, and the conversations just `closed`
    read again (their files changed while they were open). A failure is only logged: the next
    start reads what the index lacks."""
    try:
        entries, _ = await controls.run(load_entries, path, closed)
        await controls.run(write_index, path, entries + stored)
    except Exception as exc:
        logger.warning("The conversation index was not written: %s", exc)
