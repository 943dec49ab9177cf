"""Which working directories the server's conversations hold, and which a delete may remove.

A conversation's working directory is claimed for as long as the conversation exists (open or
stored): claimed folders are hidden from other conversations' sandboxes. When a conversation
is deleted, its folder goes only if the server made it for that conversation, under the
server's workspace root, and no other conversation works in it.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.summary_index import StoredEntry
from openhands.sdk.workspace import claim_workspace, release_workspace
from openhands.sdk.workspace.sandbox import claim_workspaces


class WorkspaceClaims:
    """The working directory each existing conversation has claimed."""

    def __init__(self) -> None:
        self._claims: dict[uuid.UUID, str] = {}

    def claim(self, conversation_id: uuid.UUID, working_dir: str) -> None:
        """Hide this conversation's working directory from other conversations' sandboxes
        (for as long as the conversation exists, open or not)."""
        if conversation_id not in self._claims:
            self._claims[conversation_id] = working_dir
            claim_workspace(working_dir)

    def claim_all(self, entries: list[StoredEntry]) -> None:
        """`claim` for the stored conversations found at start-up (resolved in one pass)."""
        new = [e for e in entries if e.id not in self._claims]
        for entry in new:
            self._claims[entry.id] = entry.working_dir
        claim_workspaces(entry.working_dir for entry in new)

    def release(self, conversation_id: uuid.UUID) -> None:
        """Give up a deleted conversation's claim (nothing if it had none)."""
        claimed = self._claims.pop(conversation_id, None)
        if claimed is not None:
            release_workspace(claimed)

    def release_all(self) -> None:
        """Give up every claim (the server is closing)."""
        for claimed in self._claims.values():
            release_workspace(claimed)
        self._claims.clear()


def workspace_of(
    live: LiveConversation | None, entry: StoredEntry | None
) -> tuple[str, bool] | None:
    """(working directory, made for the conversation) of a conversation being deleted."""
    if live is not None:
        state = live.conversation.state
        return state.workspace.working_dir, state.created_workspace
    if entry is not None:
        return entry.working_dir, entry.created_workspace
    return None


def keep_reason(
    working_dir: str, created: bool, workspace_root: Path, users: list[uuid.UUID]
) -> str | None:
    """Why a deleted conversation's working directory must stay (None: remove it).

    `workspace_root` is where the server makes folders; `users` the other conversations
    that work in `working_dir`.
    """
    folder = Path(working_dir)
    if folder.parent != workspace_root.resolve():
        return "the client chose this folder; the server removes only folders it made"
    if not created:
        return "it existed before the conversation was created"
    if users:
        names = ", ".join(str(cid) for cid in users[:3])
        more = f" and {len(users) - 3} more" if len(users) > 3 else ""
        return f"conversation {names}{more} still uses it"
    return None
