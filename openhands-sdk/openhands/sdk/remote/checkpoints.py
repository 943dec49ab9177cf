"""The checkpoint API of a `RemoteConversation`: the server's snapshots of its workspace."""

from __future__ import annotations

import uuid

from openhands.sdk.remote.client import RemoteClient
from openhands.sdk.wire import TakeCheckpointRequest, to_wire
from openhands.sdk.workspace.checkpoints import Checkpoint, CheckpointDiff, RewindResult


class RemoteCheckpoints:
    """Calls the server's checkpoint routes for one conversation (docs/checkpoints.md)."""

    def __init__(self, client: RemoteClient, conversation_id: uuid.UUID) -> None:
        """Bind to one conversation."""
        self._client = client
        self._base = f"/api/conversations/{conversation_id}/checkpoints"
        self._id = conversation_id

    def list(self) -> list[Checkpoint]:
        """GET /checkpoints: the snapshots, oldest first."""
        body = self._client.request("GET", self._base, not_found=f"Conversation {self._id}")
        return [Checkpoint.model_validate(item) for item in body or []]

    def take(self, label: str, goal_round: int | None = None) -> Checkpoint:
        """POST /checkpoints: a snapshot taken now."""
        body = self._client.request(
            "POST",
            self._base,
            json=to_wire(TakeCheckpointRequest(label=label, goal_round=goal_round)),
            not_found=f"Conversation {self._id}",
        )
        return Checkpoint.model_validate(body)

    def diff(self, target: str, base: str | None) -> CheckpointDiff:
        """GET /checkpoints/{target}/diff?base=..."""
        body = self._client.request(
            "GET",
            f"{self._base}/{target}/diff",
            params={"base": base} if base else None,
            not_found=self._what(target),
        )
        return CheckpointDiff.model_validate(body)

    def rewind(self, checkpoint_id: str) -> RewindResult:
        """POST /checkpoints/{id}/rewind."""
        body = self._client.request(
            "POST", f"{self._base}/{checkpoint_id}/rewind", not_found=self._what(checkpoint_id)
        )
        return RewindResult.model_validate(body)

    def _what(self, checkpoint_id: str) -> str:
        return f"Checkpoint {checkpoint_id} of conversation {self._id}"


__all__ = ["RemoteCheckpoints"]
