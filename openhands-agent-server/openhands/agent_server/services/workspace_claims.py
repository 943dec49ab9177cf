"""Which working directories the server's conversations hold, and which a delete may remove.

A conversation's working directory is claimed for as long as the conversation exists (open or
stored): claimed folders are hidden from other conversations' sandboxes. When a conversation
is deleted, its folder goes only if the server made it for that conversation, under the
server's workspace root, and no other conversation works in it; for a git worktree the server
made (a child's), the folder is the worktree's, which holds the working directory.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path

from openhands.agent_server.services.live import LiveConversation
from openhands.agent_server.services.summary_index import StoredEntry
from openhands.sdk.workspace import claim_workspace, release_workspace
from openhands.sdk.workspace.sandbox import claim_workspaces


class WorkspaceClaims:
    """The working directory each existing conversation has claimed."""

    def __init__(self) -> None:
        self._claims: dict[uuid.UUID, str] = {}

    def claim(
        self, conversation_id: uuid.UUID, working_dir: str, worktree_git_dir: str | None = None
    ) -> None:
        """Hide this conversation's working directory from other conversations' sandboxes
        (for as long as the conversation exists, open or not); in a git worktree the server
        made (`worktree_git_dir`), let its own sandbox use the repository's records."""
        if conversation_id in self._claims:
            return
        self._claims[conversation_id] = working_dir
        if worktree_git_dir is None:
            claim_workspace(working_dir)
            return
        from openhands.agent_server.services.worktrees import sandbox_grants

        readable, writable = sandbox_grants(worktree_git_dir)
        claim_workspace(working_dir, readable=readable, writable=writable)

    def claim_all(self, entries: list[StoredEntry]) -> None:
        """`claim` for the stored conversations found at start-up (resolved in one pass)."""
        new = [e for e in entries if e.id not in self._claims]
        plain = [e for e in new if e.worktree_git_dir is None]
        for entry in plain:
            self._claims[entry.id] = entry.working_dir
        claim_workspaces(entry.working_dir for entry in plain)
        for entry in new:
            if entry.worktree_git_dir is not None:  # few: the children in a worktree
                self.claim(entry.id, entry.working_dir, entry.worktree_git_dir)

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


@dataclass(frozen=True)
class WorkspaceUse:
    """Where a conversation being deleted works, and whether the server made that folder."""

    working_dir: str
    created: bool
    """The folder was made for the conversation (or the one it was forked from)."""
    worktree: bool = False
    """It is in a git worktree made for the conversation, in a folder of the workspace root."""

    def made_folder(self, workspace_root: Path) -> Path | None:
        """The folder a delete would remove: the working directory, or for a worktree the
        worktree's folder under `workspace_root` that holds it."""
        if not self.worktree:
            return Path(self.working_dir)
        from openhands.agent_server.services.worktrees import worktree_folder

        return worktree_folder(self.working_dir, workspace_root)


def workspace_of(live: LiveConversation | None, entry: StoredEntry | None) -> WorkspaceUse | None:
    """Where a conversation being deleted works (and whether the server made that folder)."""
    if live is not None:
        state = live.conversation.state
        return WorkspaceUse(state.workspace.working_dir, state.created_workspace, state.worktree)
    if entry is not None:
        worktree = entry.worktree_git_dir is not None
        return WorkspaceUse(entry.working_dir, entry.created_workspace, worktree)
    return None


def keep_reason(use: WorkspaceUse, workspace_root: Path, users: list[uuid.UUID]) -> str | None:
    """Why a deleted conversation's working directory must stay (None: remove it).

    `workspace_root` is where the server makes folders; `users` the other conversations
    that work in the same directory.
    """
    folder = use.made_folder(workspace_root)
    if folder is None or folder.parent != workspace_root.resolve():
        return "the client chose this folder; the server removes only folders it made"
    if not use.created:
        return "it existed before the conversation was created"
    if users:
        names = ", ".join(str(cid) for cid in users[:3])
        more = f" and {len(users) - 3} more" if len(users) > 3 else ""
        return f"conversation {names}{more} still uses it"
    return None
