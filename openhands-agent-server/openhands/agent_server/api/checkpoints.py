"""REST routes of a conversation's workspace checkpoints: list, take, diff, rewind.

A goal snapshots its workspace at its start and after every round; these routes read the
snapshots, take one by hand, show what changed between two, and restore one (recorded as a
`key="rewind"` event). See docs/checkpoints.md.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from openhands.agent_server.api.deps import live_conversation
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.services.live import LiveConversation
from openhands.sdk.wire import TakeCheckpointRequest
from openhands.sdk.workspace.checkpoints import Checkpoint, CheckpointDiff, RewindResult

router = APIRouter(
    prefix="/api/conversations/{conversation_id}/checkpoints",
    tags=["checkpoints"],
    route_class=CheckedRoute,
)

Live = Annotated[LiveConversation, Depends(live_conversation)]


@router.get("", response_model=list[Checkpoint], responses=error_responses(404))
async def list_checkpoints(conversation: Live) -> list[Checkpoint]:
    """The workspace's checkpoints, oldest first ([] before the first)."""
    return await conversation.checkpoints.list()


@router.post("", response_model=Checkpoint, responses=error_responses(400, 404, *STORAGE))
async def take_checkpoint(
    conversation: Live, request: TakeCheckpointRequest | None = None
) -> Checkpoint:
    """Snapshot the workspace now; 400 when checkpoints cannot be kept here (no git, switched
    off with OH_CHECKPOINTS=0, or more files than OH_CHECKPOINT_MAX_FILES)."""
    body = request or TakeCheckpointRequest()
    return await conversation.checkpoints.take(body.label, body.goal_round)


@router.get("/{checkpoint_id}/diff", response_model=CheckpointDiff, responses=error_responses(404))
async def checkpoint_diff(
    checkpoint_id: str,
    conversation: Live,
    base: Annotated[
        str | None,
        Query(description="The older checkpoint (default: the one before this one)."),
    ] = None,
) -> CheckpointDiff:
    """The files changed from `base` to this checkpoint, and the unified diff (cut at
    OH_CHECKPOINT_MAX_DIFF_CHARS)."""
    return await conversation.checkpoints.diff(checkpoint_id, base)


@router.post(
    "/{checkpoint_id}/rewind",
    response_model=RewindResult,
    responses=error_responses(404, 409, *STORAGE),
)
async def rewind(checkpoint_id: str, conversation: Live) -> RewindResult:
    """Restore the workspace to this checkpoint (the current state is snapshot first, so the
    rewind can be undone); 409 while the agent runs or a goal drives the conversation."""
    return await conversation.checkpoints.rewind(checkpoint_id)
