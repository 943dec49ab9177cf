"""The `start_child_conversation` tool definition (its action and observation: `schema.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Self

from openhands.sdk.tool import (
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    register_tool,
)
from openhands.tools.child_conversation.schema import (
    StartChildConversationAction,
    StartChildConversationObservation,
)
from openhands.tools.params import parse_params
from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "ChildConversationParams",
    "StartChildConversationAction",
    "StartChildConversationObservation",
    "StartChildConversationTool",
]

DESCRIPTION = (
    "Start a child conversation on this server: another agent with this conversation's "
    "configuration, working on a delegated task in parallel.\n"
    "The child cannot see this conversation: `task` must be a complete brief (goal, paths, "
    "constraints, what to deliver). `isolation`: 'worktree' (default) gives it a git "
    "worktree and branch of its own when the workspace is a git repository, made from the "
    "repository's default branch (not your branch or uncommitted changes: use 'shared' when "
    "it must see them); 'shared' runs it in this working directory.\n"
    "Returns the child's conversation id and status; tell the user. A launch is not "
    "idempotent: call it once per task and do not retry one that returned an id."
)


class ChildConversationParams(BaseModel):
    """The `params` of `Tool(name="start_child_conversation")`."""

    model_config = ConfigDict(extra="forbid")

    launch_url: str | None = Field(
        default=None,
        pattern=r"^https?://",
        description="Where to POST the launch; default: this server's "
        "/api/conversations/{id}/children.",
    )
    timeout: float = Field(
        default=300.0, gt=0, le=3600, description="Seconds to wait for the launch to answer."
    )


class StartChildConversationTool(
    ToolDefinition[StartChildConversationAction, StartChildConversationObservation]
):
    """Launches a child conversation on the server running this one."""

    user_selectable: ClassVar[bool] = False
    description = DESCRIPTION
    action_type = StartChildConversationAction
    observation_type = StartChildConversationObservation

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[Self]:
        """The tool bound to this conversation (the parent); params: `launch_url`, `timeout`."""
        settings = parse_params(ChildConversationParams, "start_child_conversation", params)
        from openhands.tools.child_conversation.impl import StartChildConversationExecutor

        executor = StartChildConversationExecutor(
            parent_conversation_id=context.conversation_id,
            launch_url=settings.launch_url,
            timeout=settings.timeout,
        )
        return [
            cls(
                executor=executor,
                annotations=ToolAnnotations(
                    readOnlyHint=False,
                    destructiveHint=False,
                    idempotentHint=False,
                    openWorldHint=True,
                ),
            )
        ]


register_tool(StartChildConversationTool.name, StartChildConversationTool)
