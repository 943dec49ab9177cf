"""`StateMemory`: the in-memory side of a `ConversationState`, never saved as such.

Its event log, its lock, the tree of events and the HEAD, the LLM message history folded so
far, the secrets (in memory only) and what was last written to base_state.json. A plain
object rather than private attributes of the pydantic model: these are read on every step,
and pydantic's private-attribute lookup is slow.
"""

from __future__ import annotations

import threading

from openhands.sdk.contracts import ConversationExecutionStatus
from openhands.sdk.conversation.branch import EventTree, head_of, is_tree_node, tail_events
from openhands.sdk.conversation.event_files import EventFiles
from openhands.sdk.conversation.event_log import FileEventLog, InMemoryEventLog
from openhands.sdk.conversation.secret_registry import SecretRegistry
from openhands.sdk.event.base import Event
from openhands.sdk.event.to_messages import MessageHistory
from openhands.sdk.llm.message import Message


class StateMemory:
    """The in-memory side of a state: its event log, lock, message history and what is saved."""

    __slots__ = (
        "created_folder",
        "events",
        "files",
        "head",
        "head_known",
        "history",
        "history_leaf",
        "history_upto",
        "lock",
        "logged_status",
        "saved",
        "saved_config",
        "secrets",
        "tree",
    )

    def __init__(self, events: FileEventLog | InMemoryEventLog) -> None:
        self.events = events
        self.files: EventFiles | None = None  # the per-event copy (file logs only)
        self.lock = threading.RLock()
        self.history = MessageHistory()
        self.history_upto = 0  # events of the log folded into `history`
        self.history_leaf: str | None = None  # the node `history` ends with
        self.tree = EventTree()
        self.head: str | None = None  # the HEAD, once known
        self.head_known = False
        self.secrets = SecretRegistry()  # in memory only: never persisted
        self.saved: str | None = None  # the base_state.json text last written or read
        self.saved_config: str | None = None  # its configuration part, as JSON
        self.created_folder = False  # this process created the conversation's folder
        self.logged_status = ConversationExecutionStatus.IDLE  # the log's newest status

    # The tree, kept here (a plain object) rather than on the pydantic model: these run on
    # every step, and pydantic's private-attribute lookup is slow. Callers hold `lock`.

    def head_id(self) -> str | None:
        """The HEAD (read from the end of the log once, after reopening)."""
        if not self.head_known:
            log = self.events
            if isinstance(log, FileEventLog):
                self.head = head_of(tail_events(log.path, log.size))
            else:
                self.head = head_of(reversed(log.read()))
            self.head_known = True
        return self.head

    def folded_tree(self) -> EventTree:
        """The parents of every event, folded up to the end of the log."""
        tree = self.tree
        total = len(self.events)
        if tree.upto < total:
            tree.fold(self.events.read(tree.upto, total))
        return tree

    def branch(self, leaf: str | None, limit: int | None) -> list[Event]:
        """The path from the root to `leaf`, oldest first (`limit`: only the newest events)."""
        tree = self.folded_tree()
        if limit is not None and tree.linear and leaf == tree.last_node:
            # Never branched: the newest nodes of the log are the branch's end.
            total = tree.upto
            window = self.events.read(max(0, total - 2 * limit - 4), total)
            nodes = [event for event in window if is_tree_node(event)]
            if len(nodes) >= limit or len(window) == total:
                return nodes[-limit:] if limit else []
        return tree.path_to_root(leaf, self.events.get, limit)

    def llm_messages(self) -> list[Message]:
        """See `ConversationState.llm_messages`."""
        tree = self.folded_tree()
        head = self.head_id()
        if self.history_leaf == head and self.history_upto == tree.upto:
            return self.history.messages
        added = self.events.read(self.history_upto, tree.upto)
        leaf = self.history_leaf
        for event in added:
            if is_tree_node(event):
                if tree.parents[event.id] != leaf:
                    break
                leaf = event.id
        else:
            if leaf == head:
                self.history.extend(added)
                self.history_leaf, self.history_upto = head, tree.upto
                return self.history.messages
        history = MessageHistory()
        history.extend(tree.path_to_root(head, self.events.get))
        self.history = history
        self.history_leaf, self.history_upto = head, tree.upto
        return history.messages
