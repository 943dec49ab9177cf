"""`Catalog`: what the server knows of every conversation without opening it.

It keeps the listing order (newest first) of every conversation, the `StoredEntry` of each one
that is not open (from the start-up index, `summary_index.py`: status, working directory,
creation time), the summaries of those a listing has shown (read on demand through the SDK's
persistence API: `base_state.json` and the log written after its snapshot, never the history),
the children of each parent (for `sub_conversation_ids`, without a scan) and the folders found
damaged. Searches and counts answer from the entries; the registry
(`registry.py`) reads the summaries a page shows, and asks the open conversations' live state
instead.
"""

from __future__ import annotations

import bisect
import logging
import uuid
from collections.abc import Iterator
from datetime import datetime

from openhands.agent_server.services.summary_index import StoredEntry
from openhands.sdk.conversation import ConversationSummary
from openhands.sdk.conversation.goal import GoalStatus
from openhands.sdk.wire import ConversationInfo
from pydantic import BaseModel, Field, ValidationError

logger = logging.getLogger(__name__)

_SortKey = tuple[datetime, str]


class BrokenConversation(BaseModel):
    """A persisted conversation that could not be loaded (it is skipped)."""

    id: str = Field(description="The folder name under the conversations path.")
    error: str = Field(description="Why it could not be loaded.")


def broken_entry(conversation_id: uuid.UUID, exc: BaseException) -> BrokenConversation:
    """The report of a conversation that could not be loaded (and the log line saying so)."""
    first = str(exc).splitlines()[0] if str(exc) else ""
    message = f"{type(exc).__name__}: {first}"
    logger.error("Skipping conversation %s: it could not be loaded (%s)", conversation_id, message)
    return BrokenConversation(id=conversation_id.hex, error=message)


class Catalog:
    """Every conversation in listing order, with what is known of those that are not open."""

    def __init__(self) -> None:
        self._order: list[_SortKey] = []  # ascending (created_at, id.hex)
        self._keys: dict[uuid.UUID, _SortKey] = {}
        self._ids: dict[str, uuid.UUID] = {}
        self._stored: dict[uuid.UUID, StoredEntry] = {}
        self._summaries: dict[uuid.UUID, ConversationSummary] = {}
        self._goals: dict[uuid.UUID, GoalStatus | None] = {}
        self._parents: dict[uuid.UUID, uuid.UUID] = {}  # child -> parent
        self._children: dict[uuid.UUID, set[uuid.UUID]] = {}  # parent -> children
        self.broken: list[BrokenConversation] = []

    # -- membership -------------------------------------------------------------------------

    def add(
        self,
        conversation_id: uuid.UUID,
        created_at: datetime,
        *,
        parent: uuid.UUID | None = None,
    ) -> None:
        """Know a conversation (open: its live state answers for it), a child of `parent`
        if it has one."""
        if conversation_id not in self._keys:
            key = (created_at, conversation_id.hex)
            bisect.insort(self._order, key)
            self._keys[conversation_id] = key
            self._ids[conversation_id.hex] = conversation_id
        self._link(conversation_id, parent)

    def add_stored(self, entries: list[StoredEntry]) -> None:
        """Know these stored conversations (start-up: sorted once, not inserted one by one)."""
        for entry in entries:
            self._stored[entry.id] = entry
            if entry.id not in self._keys:
                key = (entry.created_at, entry.id.hex)
                self._order.append(key)
                self._keys[entry.id] = key
                self._ids[entry.id.hex] = entry.id
            self._link(entry.id, entry.parent_conversation_id)
        self._order.sort()

    def _link(self, child: uuid.UUID, parent: uuid.UUID | None) -> None:
        if parent is not None and child not in self._parents:
            self._parents[child] = parent
            self._children.setdefault(parent, set()).add(child)

    def opened(self, conversation_id: uuid.UUID) -> None:
        """The conversation is open now: its live state answers instead of its entry."""
        self._stored.pop(conversation_id, None)
        self._summaries.pop(conversation_id, None)
        self._goals.pop(conversation_id, None)

    def remove(self, conversation_id: uuid.UUID) -> None:
        """Forget a conversation (deleted, or found damaged)."""
        key = self._keys.pop(conversation_id, None)
        if key is not None:
            index = bisect.bisect_left(self._order, key)
            if index < len(self._order) and self._order[index] == key:
                del self._order[index]
            self._ids.pop(conversation_id.hex, None)
        parent = self._parents.pop(conversation_id, None)
        if parent is not None:
            siblings = self._children.get(parent)
            if siblings is not None:
                siblings.discard(conversation_id)
                if not siblings:
                    del self._children[parent]
        self.opened(conversation_id)

    def mark_broken(self, conversation_id: uuid.UUID, exc: BaseException) -> None:
        """Forget a conversation that turned out damaged, and report it."""
        self.remove(conversation_id)
        self.broken.append(broken_entry(conversation_id, exc))

    def __contains__(self, conversation_id: object) -> bool:
        return conversation_id in self._keys

    def __len__(self) -> int:
        return len(self._order)

    def children(self, conversation_id: uuid.UUID) -> list[uuid.UUID]:
        """The conversations naming `conversation_id` as their parent, oldest first (a
        deleted parent's children keep their link; they are not deleted with it)."""
        found = self._children.get(conversation_id)
        if not found:
            return []
        return sorted(found, key=lambda child: self._keys[child])

    def entry(self, conversation_id: uuid.UUID) -> StoredEntry | None:
        """The entry of a conversation that is not open, else None."""
        return self._stored.get(conversation_id)

    def entries(self) -> list[StoredEntry]:
        """The entries of every conversation that is not open."""
        return list(self._stored.values())

    def summary(self, conversation_id: uuid.UUID) -> ConversationSummary | None:
        """The summary of a conversation that is not open, if it was read (`unread`)."""
        return self._summaries.get(conversation_id)

    def unread(self, ids: list[uuid.UUID]) -> list[uuid.UUID]:
        """Those of `ids` that are stored and whose summary was not read yet."""
        return [cid for cid in ids if cid in self._stored and cid not in self._summaries]

    def set_summary(self, summary: ConversationSummary) -> None:
        """Keep a stored conversation's summary, read for a listing."""
        if summary.id in self._stored:
            self._summaries[summary.id] = summary

    def newest_first(self, start: uuid.UUID | None = None) -> Iterator[uuid.UUID]:
        """Conversation ids, newest first, from `start` (inclusive) when given.

        Raises KeyError for a `start` the catalog does not hold.
        """
        if start is None:
            index = len(self._order) - 1
        else:
            key = self._keys[start]
            index = bisect.bisect_left(self._order, key)
        for position in range(index, -1, -1):
            yield self._ids[self._order[position][1]]

    # -- what a listing shows for a conversation that is not open -----------------------------

    def needs_goal_lookup(self, conversation_id: uuid.UUID) -> bool:
        """True if the summary's goal refers to an objective only its log holds."""
        summary = self._summaries.get(conversation_id)
        if summary is None or summary.goal is None or conversation_id in self._goals:
            return False
        return "objective" not in summary.goal

    def set_goal(self, conversation_id: uuid.UUID, status: GoalStatus | None) -> None:
        """Keep the goal status read from a stored conversation's log."""
        if conversation_id in self._summaries:
            self._goals[conversation_id] = status

    def stored_info(self, summary: ConversationSummary) -> ConversationInfo:
        """A conversation that is not open, as clients see it."""
        return ConversationInfo(
            id=summary.id,
            agent=summary.agent,
            workspace=summary.workspace,
            execution_status=summary.execution_status,
            title=summary.title,
            tags=dict(summary.tags),
            created_at=summary.created_at,
            updated_at=summary.updated_at,
            metrics=dict(summary.stats.usage_to_metrics),
            goal=self._goal(summary),
            confirmation_policy=summary.confirmation_policy,
            max_iterations=summary.max_iterations,
            hook_config=summary.hook_config,
            persistence_dir=summary.persistence_dir,
            parent_conversation_id=summary.parent_conversation_id,
        )

    def _goal(self, summary: ConversationSummary) -> GoalStatus | None:
        if summary.id in self._goals:
            return self._goals[summary.id]
        value = summary.goal
        if value is None:
            return None
        if "objective" not in value:
            value = {**value, "objective": ""}  # only when its log could not be read
        try:
            status = GoalStatus.model_validate(value)
        except ValidationError as exc:
            logger.warning("conversation %s: unreadable goal status: %s", summary.id, exc)
            status = None
        self._goals[summary.id] = status
        return status
