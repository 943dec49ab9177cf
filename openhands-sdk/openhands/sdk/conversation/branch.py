"""The conversation tree: each event's parent, the HEAD, and the branch the agent sees.

Every event but a `ConversationStateUpdateEvent` is a node of the tree. When an event is
appended it gets `parent_id` = the HEAD (the previous node, unless `navigate_to` moved the
HEAD), and becomes the HEAD. Moving the HEAD is itself recorded, as a state update with key
`HEAD_KEY`, so it survives a restart; appending after a move starts a sibling branch, and the
abandoned branch stays in the log. The *active branch* is the path from the HEAD to the root;
only it reaches the LLM.

An event without `parent_id` (the first one, or one written before events had parents)
follows the previous node of the log, so old logs read as one straight branch.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from openhands.sdk.conversation.errors import UnknownEventError
from openhands.sdk.conversation.log_scan import last_line
from openhands.sdk.conversation.snapshot import HEAD_KEY
from openhands.sdk.event.base import ROOT_PARENT_ID, Event, LLMConvertibleEvent, event_from_json
from openhands.sdk.event.state import ConversationStateUpdateEvent

__all__ = [
    "HEAD_KEY",
    "BranchView",
    "EventTree",
    "UnknownEventError",
    "head_of",
    "is_tree_node",
    "tail_events",
]


def is_tree_node(event: Event) -> bool:
    """Whether `event` is a node of the tree (state updates are not)."""
    return not isinstance(event, ConversationStateUpdateEvent)


def head_of(newest_first: Iterator[Event] | Sequence[Event]) -> str | None:
    """The HEAD a log ends with, given its events newest first (None: an empty HEAD).

    It is the newest node, unless a HEAD move was recorded after it.
    """
    for event in newest_first:
        if isinstance(event, ConversationStateUpdateEvent):
            if event.key == HEAD_KEY:
                value = event.value
                return value if isinstance(value, str) else None
            continue
        return event.id
    return None


def tail_events(path: Path, end: int) -> Iterator[Event]:
    """The events of the log file at `path` before byte `end`, newest first, parsed one by one.

    Finding the HEAD this way reads a few lines from the end instead of the whole history.
    """
    try:
        handle = open(path, "rb")  # noqa: SIM115  (closed below)
    except FileNotFoundError:
        return
    with handle:
        end = min(end, os.fstat(handle.fileno()).st_size)
        while end > 0:
            start, line = last_line(handle, end)
            if not line:
                return
            yield event_from_json(line)
            end = start


class EventTree:
    """The effective parent of every node of a log, folded in log order (each event once)."""

    __slots__ = ("last_node", "linear", "parents", "upto")

    def __init__(self) -> None:
        self.parents: dict[str, str | None] = {}
        self.last_node: str | None = None  # the newest node in log order
        self.upto = 0  # how many events of the log were folded
        self.linear = True  # every node follows the node before it in the log

    def fold(self, events: Sequence[Event]) -> None:
        """Add the next events of the log."""
        for event in events:
            if not is_tree_node(event):
                continue
            parent = event.parent_id
            if parent == ROOT_PARENT_ID:
                parent = None
            elif parent is None:
                parent = self.last_node  # written before events had parents: the log's order
            if parent != self.last_node:
                self.linear = False
            self.parents[event.id] = parent
            self.last_node = event.id
        self.upto += len(events)

    def path_to_root(
        self,
        leaf: str | None,
        get: Callable[[str], Event | None],
        limit: int | None = None,
    ) -> list[Event]:
        """The events from the root to `leaf`, oldest first (`limit`: only the newest ones).

        Raises `UnknownEventError` for an id that is not in the log.
        """
        chain: list[Event] = []
        current = leaf
        while current is not None and (limit is None or len(chain) < limit):
            event = get(current) if current in self.parents else None
            if event is None:
                raise UnknownEventError(f"Event {current!r} is not in this conversation.")
            chain.append(event)
            parent = self.parents[current]
            if parent == current or len(chain) > len(self.parents):
                raise UnknownEventError(f"The conversation tree has a cycle at {current!r}.")
            current = parent
        chain.reverse()
        return chain


class BranchView:
    """The active branch as the LLM sees it: its LLM-convertible events, oldest first."""

    __slots__ = ("events",)

    def __init__(self, events: Sequence[Event]) -> None:
        self.events: list[LLMConvertibleEvent] = [
            event for event in events if isinstance(event, LLMConvertibleEvent)
        ]

    def __len__(self) -> int:
        return len(self.events)
