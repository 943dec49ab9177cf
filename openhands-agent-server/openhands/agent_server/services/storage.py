"""The disk work on stored conversations: read summaries, open, create, delete.

Blocking functions (the registry runs them in control threads), through the SDK's
persistence API (summaries, `LocalConversation` reopening a stored id). Each step completes
or is undone: a create that fails leaves no folder (the SDK removes the conversation's
folder, and the working directory made for it is removed here); a delete's one step that can
fail is an atomic rename of the folder out of the listing, and removing the renamed folder
afterwards cannot leave it half-deleted.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import logging
import os
import shutil
import uuid
from collections.abc import Callable, Container
from pathlib import Path

from openhands.agent_server.blocking import Pools
from openhands.agent_server.errors import InvalidRequestError, NotFoundError
from openhands.agent_server.goals.backend import GoalBackend
from openhands.agent_server.services.catalog import BrokenConversation, broken_entry
from openhands.agent_server.services.credentials import Credentials
from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.summary_index import StoredEntry, stamp_of
from openhands.sdk.conversation import (
    ConversationConfig,
    ConversationSummary,
    FileEventLog,
    LocalConversation,
    load_conversation_summary,
    remove_unfinished,
)
from openhands.sdk.conversation.goal import GoalStatus, last_goal_status
from openhands.sdk.errors import StorageError, storage_error
from openhands.sdk.io import fsync_dir, make_private, make_private_dir
from openhands.sdk.tool.registry import InvalidToolSpecError
from pydantic import ValidationError

logger = logging.getLogger(__name__)

TRASH_PREFIX = ".deleted-"
"""A deleted conversation's folder is renamed to this prefix plus its id, then removed."""

STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO})
"""OS errors that mean the disk refused (503/507), not that the request was wrong (422)."""


def load_summaries(
    path: Path, ids: list[uuid.UUID]
) -> tuple[list[ConversationSummary], list[BrokenConversation]]:
    """The summaries of these stored conversations, and the ones found damaged.

    Blocking: reads each one's `base_state.json` and the tail of its log (mostly waiting for
    the disk, so several threads can share the work).
    """
    summaries: list[ConversationSummary] = []
    broken: list[BrokenConversation] = []
    for conversation_id in ids:
        try:
            summary = load_conversation_summary(path, conversation_id)
        except Exception as exc:
            broken.append(broken_entry(conversation_id, exc))
            continue
        if summary is not None:  # None: a creation that never completed
            summaries.append(summary)
    return summaries, broken


def load_entries(
    path: Path, ids: list[uuid.UUID]
) -> tuple[list[StoredEntry], list[BrokenConversation]]:
    """The index entries of these stored conversations (each stamped before it is read), and
    the ones found damaged. Blocking, like `load_summaries`."""
    root = os.fspath(path)
    entries: list[StoredEntry] = []
    broken: list[BrokenConversation] = []
    for conversation_id in ids:
        stamp = stamp_of(f"{root}/{conversation_id.hex}")
        try:
            summary = load_conversation_summary(path, conversation_id)
        except Exception as exc:
            broken.append(broken_entry(conversation_id, exc))
            continue
        if summary is not None:  # None: a creation that never completed
            entries.append(StoredEntry.of(summary, stamp))
    return entries, broken


def read_goal_status(folder: Path) -> GoalStatus | None:
    """The latest goal status of a stored conversation, objective included (reads its log).

    A goal event after the first holds only a reference to the objective; finding it means
    reading the log, so a listing does it once per conversation (the catalog keeps it).
    """
    log = FileEventLog(folder)
    try:
        return last_goal_status(log)
    finally:
        log.close()


def read_goal_statuses(
    persistence_dir: Path, ids: list[uuid.UUID]
) -> dict[uuid.UUID, GoalStatus | None]:
    """`read_goal_status` of several stored conversations; one whose log fails is left out."""
    found: dict[uuid.UUID, GoalStatus | None] = {}
    for conversation_id in ids:
        try:
            found[conversation_id] = read_goal_status(persistence_dir / conversation_id.hex)
        except Exception as exc:  # listed with its status, only without the objective
            logger.warning("conversation %s: goal objective not readable: %s", conversation_id, exc)
    return found


def open_conversation(
    conversation_id: uuid.UUID,
    persistence_dir: Path,
    credentials: Credentials,
    pools: Pools,
    loop: asyncio.AbstractEventLoop,
    goal_backend: GoalBackend | None = None,
) -> LiveConversation:
    """Reopen a stored conversation with its events read, as a `LiveConversation`.

    The log is read here, in a worker thread, so later reads (pages, sockets, the goal's
    status) are in memory and never block the event loop. NotFoundError if its folder is
    gone; a damaged file raises the SDK's error (a ValueError: `ConversationStateError`,
    `EventLogCorruptError`, a validation error); a refusing disk `StorageError`.
    """
    # Read now (what a listing showed may be older): given an agent, LocalConversation would
    # create a conversation that is not (any more) on disk instead of reopening it.
    summary = load_conversation_summary(persistence_dir, conversation_id)
    if summary is None:
        raise NotFoundError(f"Conversation {conversation_id} does not exist.")
    # A fresh copy to give a key to (the summary's stays keyless; it holds locks: no deepcopy).
    agent = type(summary.agent).model_validate(summary.agent.model_dump())
    agent = credentials.reopened(summary.id, agent)
    conversation = LocalConversation(
        agent, persistence_dir=persistence_dir, conversation_id=summary.id
    )
    try:
        len(conversation.state.events)
        check_keys = functools.partial(credentials.check, summary.id)
        live = LiveConversation(
            conversation, pools, loop, check_keys=check_keys, goal_backend=goal_backend
        )
        live.goal.load_status()
    except BaseException:
        conversation.close()
        raise
    return live


def create_conversation(
    config: ConversationConfig,
    persistence_dir: Path,
    conversation_id: uuid.UUID,
    *,
    credentials: Credentials | None = None,
    after_create: Callable[[], None] | None = None,
) -> LocalConversation:
    """Create and persist a conversation with its whole configuration, or raise and leave no
    folder behind.

    The configuration (policy and analyzer included) is in the first `base_state.json`, so a
    crash right after the create cannot lose a part of it. `credentials.created` writes what
    it keeps (sealed keys) once the folder exists, then `after_create` (e.g. its sealed secret
    sources); if either fails, so does the create. A bad tool spec or field is an
    `InvalidRequestError` (422); a refusing disk a `StorageError` (503, or
    `StorageFullError`: 507).
    """
    working_dir = Path(config.workspace.working_dir)
    made_working_dir = not working_dir.exists()
    try:
        conversation = LocalConversation(
            None, persistence_dir=persistence_dir, conversation_id=conversation_id, config=config
        )
        if credentials is not None or after_create is not None:
            try:
                if credentials is not None:
                    credentials.created(conversation_id)
                if after_create is not None:
                    after_create()
            except BaseException:
                conversation.close()
                remove_folders(persistence_dir / conversation_id.hex)
                raise
        return conversation
    except BaseException as exc:
        if made_working_dir:  # only if still empty: never anything but what this call made
            with contextlib.suppress(OSError):
                working_dir.rmdir()
        if isinstance(exc, StorageError):
            raise
        if isinstance(exc, InvalidToolSpecError):
            raise InvalidRequestError(str(exc), ("body", "agent", "tools")) from exc
        if isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS:
            raise storage_error("create", working_dir, exc) from exc
        if isinstance(exc, ValidationError | ValueError | OSError):
            raise InvalidRequestError(
                f"The conversation could not be created: {exc}", ("body",)
            ) from exc
        raise


def move_to_trash(persistence_dir: Path, conversation_id: uuid.UUID) -> Path | None:
    """Rename a conversation's folder out of the listing (a delete's commit point).

    Returns the new name to remove afterwards (None: there was no folder). Raises
    `StorageError` if the disk refuses, and then nothing changed.
    """
    folder = persistence_dir / conversation_id.hex
    trash = persistence_dir / f"{TRASH_PREFIX}{conversation_id.hex}-{uuid.uuid4().hex[:8]}"
    try:
        os.rename(folder, trash)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise storage_error("delete", folder, exc) from exc
    try:
        fsync_dir(persistence_dir)  # durable now, or a crash may bring the conversation back
    except OSError as exc:
        logger.warning("deleted %s, but its rename is not synced to disk: %s", folder, exc)
    return trash


def prepare_folder(persistence_dir: Path, known: Container[str] = frozenset()) -> list[Path]:
    """Make the conversations folder private (created 0700, an existing one tightened) and
    remove what a crash left of a creation or a fork; return the removed folders. Folders
    named in `known` (indexed complete conversations) are not looked into.

    Run at start-up, before anything creates conversations there.
    """
    make_private_dir(persistence_dir)
    if make_private(persistence_dir):
        logger.warning(
            "%s could be read by other users; its mode is now 0700 (owner only)", persistence_dir
        )
    return remove_unfinished(persistence_dir, known=known)


def remove_trash(persistence_dir: Path) -> None:
    """Remove what deletions cut short by a crash left behind (renamed, not yet removed)."""
    try:
        leftovers = [e for e in persistence_dir.iterdir() if e.name.startswith(TRASH_PREFIX)]
    except OSError:
        return
    for entry in leftovers:
        shutil.rmtree(entry, ignore_errors=True)


def remove_folders(*folders: Path | None) -> None:
    """Remove these folders and everything in them (what is already gone is fine)."""
    for folder in folders:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
