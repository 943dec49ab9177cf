"""What `start_child_conversation` takes and returns."""

from __future__ import annotations

from openhands.sdk.tool import Action, Observation
from openhands.sdk.wire.children import ChildIsolation
from pydantic import Field

__all__ = ["StartChildConversationAction", "StartChildConversationObservation"]


class StartChildConversationAction(Action):
    """Arguments of `start_child_conversation`."""

    task: str = Field(
        description="A self-contained brief: the goal, relevant files, constraints and the "
        "expected deliverable. The child cannot see this conversation's history."
    )
    title: str | None = Field(default=None, description="A short title for the child.")
    isolation: ChildIsolation = Field(
        default="worktree",
        description="'worktree': its own git worktree and branch when the workspace is a git "
        "repository; 'shared': this working directory.",
    )


class StartChildConversationObservation(Observation):
    """The child that was started (or why none was)."""

    conversation_id: str | None = None
    parent_conversation_id: str | None = None
    status: str | None = None
    title: str | None = None
    url: str | None = None
    workspace: str | None = None
    isolation: ChildIsolation | None = None
