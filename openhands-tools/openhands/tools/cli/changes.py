"""What the agent changed, for `openhands-goal`: a line per round's snapshot, the goal's whole
diff (`--diff`), and rewinding the workspace to a snapshot (`--rewind`).

The snapshots come from the goal loop (a `key="checkpoint"` event at the goal's start and at
the end of each round, see docs/checkpoints.md); local and server conversations answer the
same calls (`list_checkpoints`, `checkpoint_diff`, `rewind`).
"""

from __future__ import annotations

from typing import Protocol

from openhands.sdk.workspace.checkpoints import (
    Checkpoint,
    CheckpointDiff,
    RewindResult,
)

MAX_LISTED_FILES = 8
"""How many changed files a round's line names before "and N more"."""


class CheckpointSource(Protocol):
    """A conversation (local or on a server) whose workspace has snapshots."""

    def list_checkpoints(self) -> list[Checkpoint]:
        """The snapshots, oldest first."""
        ...

    def checkpoint_diff(self, target: str, base: str | None = None) -> CheckpointDiff:
        """The changes from `base` to `target`."""
        ...

    def rewind(self, checkpoint_id: str) -> RewindResult:
        """Restore the workspace to a snapshot."""
        ...


def checkpoint_line(checkpoint: Checkpoint) -> str | None:
    """A snapshot in one line: what a round changed ("round 2 changed 2 files (snapshot
    1a2b3c4d): a.py (added), b.py (modified)"); None for one no goal round ends."""
    short = checkpoint.id[:8]
    if checkpoint.goal_round is None:
        return None
    if checkpoint.goal_round == 0:
        return f"snapshot {short} of the workspace at the goal's start"
    count = checkpoint.changed
    head = f"round {checkpoint.goal_round} changed {count} file{'' if count == 1 else 's'}"
    head += f" (snapshot {short})"
    if not checkpoint.changes:
        return head
    named = [f"{c.path} ({c.change})" for c in checkpoint.changes[:MAX_LISTED_FILES]]
    more = count - len(named)
    return f"{head}: {', '.join(named)}{f' and {more} more' if more > 0 else ''}"


def rewind_line(result: RewindResult) -> str:
    """What a rewind did, in one line."""
    return (
        f"workspace rewound to snapshot {result.checkpoint[:8]} ({result.label}): "
        f"{len(result.restored)} file(s) restored, {len(result.deleted)} deleted; "
        f"undo with --rewind {result.before[:12]}"
    )


def goal_span(checkpoints: list[Checkpoint]) -> tuple[Checkpoint, Checkpoint] | None:
    """The newest goal's start snapshot and its newest round snapshot, or None before a round
    ended."""
    start_index = None
    for index, checkpoint in enumerate(checkpoints):
        if checkpoint.goal_round == 0:
            start_index = index
    if start_index is None:
        return None
    rounds = [c for c in checkpoints[start_index + 1 :] if (c.goal_round or 0) > 0]
    return (checkpoints[start_index], rounds[-1]) if rounds else None


def goal_diff(source: CheckpointSource) -> CheckpointDiff | None:
    """Everything the newest goal changed (its start to its newest round), or None."""
    span = goal_span(source.list_checkpoints())
    if span is None:
        return None
    start, end = span
    return source.checkpoint_diff(end.id, start.id)


__all__ = [
    "CheckpointSource",
    "checkpoint_line",
    "goal_diff",
    "goal_span",
    "rewind_line",
]
