"""A live conversation's workspace checkpoints: list, take, diff and rewind, for the routes.

The SDK keeps the snapshots (`LocalConversation.checkpoint`, a shadow git repository in the
conversation's folder); this module runs them off the event loop and turns their errors
into answers: an unknown checkpoint is a 404, checkpoints that cannot be kept here (git
missing, switched off) or a snapshot over the file limit a 400, a rewind while the agent or
a goal works a 409, and so is a workspace that keeps changing while it is recorded.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from openhands.agent_server.errors import BadRequestError, ConflictError, NotFoundError
from openhands.sdk.workspace.checkpoints import (
    Checkpoint,
    CheckpointDiff,
    CheckpointLimitError,
    CheckpointUnavailableError,
    RewindResult,
    UnknownCheckpointError,
    WorkspaceChangingError,
)

if TYPE_CHECKING:
    from openhands.sdk.conversation.local import LocalConversation

T = TypeVar("T")


class GoalActivity(Protocol):
    """Whether a goal drives the conversation (a rewind must wait for it to stop)."""

    @property
    def active(self) -> bool: ...


class CheckpointHost(Protocol):
    """What the checkpoints need from their live conversation (`LiveConversation` is one):
    the SDK conversation that keeps them, its state, and the two thread pools."""

    @property
    def id(self) -> uuid.UUID: ...

    @property
    def conversation(self) -> LocalConversation: ...

    @property
    def goal(self) -> GoalActivity: ...

    @property
    def is_busy(self) -> bool: ...

    def ensure_open(self) -> None:
        """NotFoundError once the conversation is closing."""
        ...

    async def settle(self) -> None:
        """Wait (briefly) for a finished run's thread to return."""
        ...

    async def blocking(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn` in the run pool."""
        ...

    async def control(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn` in the control pool."""
        ...


class WorkspaceCheckpoints:
    """The checkpoints of one live conversation's workspace."""

    def __init__(self, live: CheckpointHost) -> None:
        """Serve the checkpoints of `live`."""
        self._live = live

    async def list(self) -> list[Checkpoint]:
        """Every checkpoint, oldest first."""
        conversation = self._live.conversation
        return await self._call(self._live.control, conversation.list_checkpoints)

    async def take(self, label: str, goal_round: int | None = None) -> Checkpoint:
        """Snapshot the workspace now (a first snapshot of a large workspace takes seconds)."""
        self._live.ensure_open()
        snapshot = functools.partial(self._live.conversation.checkpoint, goal_round=goal_round)
        return await self._call(self._live.blocking, snapshot, label)

    async def take_for_goal(self, label: str, goal_round: int | None) -> Checkpoint:
        """A goal's snapshot: as `take`, but its errors stay `CheckpointError`s (the goal
        goes on without the snapshot; it is no request to answer)."""
        snapshot = functools.partial(self._live.conversation.checkpoint, goal_round=goal_round)
        return await self._live.blocking(snapshot, label)

    async def diff(self, checkpoint_id: str, base: str | None) -> CheckpointDiff:
        """The changes from `base` (default: the checkpoint before it) to `checkpoint_id`."""
        conversation = self._live.conversation
        return await self._call(
            self._live.control, conversation.checkpoint_diff, checkpoint_id, base
        )

    async def rewind(self, checkpoint_id: str) -> RewindResult:
        """Restore the workspace to a checkpoint; 409 while the agent runs or a goal is on."""
        live = self._live
        live.ensure_open()
        if live.goal.active:
            raise ConflictError(
                f"A goal is driving conversation {live.id}: stop it (POST /goal/stop) before "
                "rewinding; resume it afterwards."
            )
        await live.settle()
        if live.is_busy:
            raise ConflictError(
                f"The agent of conversation {live.id} is running: pause it before rewinding."
            )
        return await self._call(live.blocking, live.conversation.rewind, checkpoint_id)

    async def _call(
        self, pool: Callable[..., Awaitable[T]], fn: Callable[..., T], *args: object
    ) -> T:
        try:
            return await pool(fn, *args)
        except UnknownCheckpointError as exc:
            raise NotFoundError(str(exc)) from exc
        except CheckpointUnavailableError as exc:
            raise BadRequestError(str(exc), code="checkpoints_unavailable") from exc
        except CheckpointLimitError as exc:
            raise BadRequestError(str(exc), code="too_many_files") from exc
        except WorkspaceChangingError as exc:
            raise ConflictError(str(exc), code="workspace_changing") from exc


__all__ = ["CheckpointHost", "WorkspaceCheckpoints"]
