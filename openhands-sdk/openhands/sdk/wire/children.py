"""Starting a child conversation (`POST /api/conversations/{id}/children`): the request the
`start_child_conversation` tool sends and the answer it reads, in the reference SDK's shape."""

from __future__ import annotations

import uuid
from typing import Literal

from openhands.sdk.wire.base import WireAnswer, WireRequest
from pydantic import Field

__all__ = ["ChildIsolation", "StartChildConversationRequest", "StartChildConversationResponse"]

ChildIsolation = Literal["worktree", "shared"]
"""`worktree`: a git worktree of the parent's repository of its own; `shared`: its folder."""


class StartChildConversationRequest(WireRequest):
    """Start a child of a conversation: its agent and settings, a fresh history."""

    task: str = Field(
        min_length=1,
        max_length=200_000,
        description="The child's first user message: a self-contained brief.",
    )
    title: str | None = Field(
        default=None, max_length=200, description="The child conversation's title."
    )
    isolation: ChildIsolation = Field(
        default="worktree",
        description="'worktree': a git worktree of the parent's repository (when its "
        "workspace is one), from the repository's default branch; 'shared': the parent's "
        "working directory.",
    )


class StartChildConversationResponse(WireAnswer):
    """The child that was started."""

    conversation_id: uuid.UUID
    parent_conversation_id: uuid.UUID
    status: str = Field(description="The child's execution status right after the launch.")
    title: str | None = None
    url: str | None = Field(default=None, description="A link to the child, when known.")
    workspace: str | None = Field(default=None, description="The child's working directory.")
    isolation: ChildIsolation | None = Field(
        default=None, description="The isolation applied (a worktree needs a git repository)."
    )
