"""What a checkpoint store records and answers: settings, checkpoints, diffs, rewinds.

Plain pydantic models, so the agent server returns them as JSON unchanged and a remote
client reads them back.
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import Literal

from openhands.sdk.errors import InvalidSettingError
from pydantic import BaseModel, ConfigDict, Field

DEFAULT_MAX_FILE_BYTES = 5 * 1024 * 1024
"""Files larger than this are left out of snapshots (`OH_CHECKPOINT_MAX_FILE_BYTES`)."""

DEFAULT_MAX_FILES = 100_000
"""Files one snapshot may add; beyond it the snapshot is refused (`OH_CHECKPOINT_MAX_FILES`)."""

DEFAULT_MAX_DIFF_CHARS = 400_000
"""Characters of patch text a diff answer carries (`OH_CHECKPOINT_MAX_DIFF_CHARS`)."""

DEFAULT_EXCLUDE = (
    "__pycache__/",
    "*.pyc",
    ".pytest_cache/",
    ".mypy_cache/",
    ".ruff_cache/",
    ".venv/",
    "node_modules/",
    ".tox/",
    ".DS_Store",
)
"""gitignore patterns snapshots leave out besides the workspace's own .gitignore files: caches
and dependency folders a tool recreates (`OH_CHECKPOINT_EXCLUDE` replaces the list)."""

MAX_LISTED_CHANGES = 200
"""How many changed paths a checkpoint lists; `changed` still counts them all."""

ENV_ENABLED = "OH_CHECKPOINTS"
ENV_MAX_FILE_BYTES = "OH_CHECKPOINT_MAX_FILE_BYTES"
ENV_MAX_FILES = "OH_CHECKPOINT_MAX_FILES"
ENV_MAX_DIFF_CHARS = "OH_CHECKPOINT_MAX_DIFF_CHARS"
ENV_EXCLUDE = "OH_CHECKPOINT_EXCLUDE"

ChangeKind = Literal["added", "modified", "deleted"]


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InvalidSettingError(f"{name} must be a whole number >= 1, got {raw!r}") from None
    if value < 1:
        raise InvalidSettingError(f"{name} must be >= 1, got {value}")
    return value


class CheckpointSettings(BaseModel):
    """Limits of a checkpoint store; `from_env()` reads the OH_CHECKPOINT* variables."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    enabled: bool = Field(
        default=True, description="Whether goals snapshot their workspace (OH_CHECKPOINTS=0: no)."
    )
    max_file_bytes: int = Field(
        default=DEFAULT_MAX_FILE_BYTES,
        ge=1,
        description="A file larger than this many bytes is left out of snapshots (and so is "
        "never restored or deleted by a rewind).",
    )
    max_files: int = Field(
        default=DEFAULT_MAX_FILES,
        ge=1,
        description="A snapshot that would add more files than this is refused: add a "
        ".gitignore for build output and dependencies, or raise the limit.",
    )
    max_diff_chars: int = Field(
        default=DEFAULT_MAX_DIFF_CHARS,
        ge=1,
        description="Characters of patch text one diff carries; the rest is cut (the file "
        "list stays complete).",
    )
    exclude: tuple[str, ...] = Field(
        default=DEFAULT_EXCLUDE,
        description="gitignore patterns left out of snapshots (and so never restored or "
        "deleted by a rewind), besides the workspace's .gitignore files.",
    )

    @classmethod
    def from_env(cls) -> CheckpointSettings:
        """The settings the environment gives (defaults for unset variables)."""
        enabled = os.environ.get(ENV_ENABLED, "1").strip().lower()
        patterns = os.environ.get(ENV_EXCLUDE)
        exclude = (
            DEFAULT_EXCLUDE
            if patterns is None
            else tuple(part.strip() for part in patterns.split(",") if part.strip())
        )
        return cls(
            enabled=enabled not in ("0", "false", "no", "off"),
            max_file_bytes=_env_int(ENV_MAX_FILE_BYTES, DEFAULT_MAX_FILE_BYTES),
            max_files=_env_int(ENV_MAX_FILES, DEFAULT_MAX_FILES),
            max_diff_chars=_env_int(ENV_MAX_DIFF_CHARS, DEFAULT_MAX_DIFF_CHARS),
            exclude=exclude,
        )


class FileChange(BaseModel):
    """One file that differs between two snapshots."""

    model_config = ConfigDict(defer_build=True)

    path: str = Field(description="The path relative to the workspace, with / separators.")
    change: ChangeKind
    additions: int | None = Field(
        default=None, description="Lines added (None for a binary file, or when not counted)."
    )
    deletions: int | None = Field(
        default=None, description="Lines removed (None for a binary file, or when not counted)."
    )


class Checkpoint(BaseModel):
    """A snapshot of the workspace: its id (a commit of the shadow repository) and what
    changed since the snapshot before it."""

    model_config = ConfigDict(defer_build=True)

    id: str = Field(description="The snapshot's id (40 hex digits).")
    label: str = Field(description="What the snapshot marks, e.g. 'goal start' or 'round 2'.")
    created_at: datetime
    parent: str | None = Field(
        default=None, description="The previous snapshot's id (None for the first one)."
    )
    goal_round: int | None = Field(
        default=None, description="The goal round it ends (0: the goal's start), if any."
    )
    changed: int = Field(default=0, ge=0, description="Files changed since the previous one.")
    changes: list[FileChange] = Field(
        default_factory=list,
        description=f"The changed files (at most {MAX_LISTED_CHANGES}; `changed` counts all).",
    )
    skipped: list[str] = Field(
        default_factory=list,
        description="Files left out because they are larger than max_file_bytes.",
    )


class CheckpointDiff(BaseModel):
    """The difference between two snapshots: the files, and a unified diff of them."""

    model_config = ConfigDict(defer_build=True)

    base: str | None = Field(description="The older snapshot (None: an empty workspace).")
    target: str = Field(description="The newer snapshot.")
    files: list[FileChange] = Field(default_factory=list)
    patch: str = Field(default="", description="`git diff` output (unified, 3 lines context).")
    truncated: bool = Field(
        default=False, description="True when the patch was cut at max_diff_chars."
    )


class RewindResult(BaseModel):
    """What a rewind did: the snapshot it restored, and the snapshot taken just before it
    (rewind to that one to undo the rewind)."""

    model_config = ConfigDict(defer_build=True)

    checkpoint: str = Field(description="The snapshot the workspace now matches.")
    label: str = Field(description="That snapshot's label.")
    before: str = Field(description="The snapshot of the workspace just before the rewind.")
    after: str = Field(description="The snapshot taken after it (same files as `checkpoint`).")
    restored: list[str] = Field(default_factory=list, description="Files written back.")
    deleted: list[str] = Field(default_factory=list, description="Files removed.")


__all__ = [
    "DEFAULT_EXCLUDE",
    "ENV_ENABLED",
    "ENV_EXCLUDE",
    "ENV_MAX_DIFF_CHARS",
    "ENV_MAX_FILES",
    "ENV_MAX_FILE_BYTES",
    "MAX_LISTED_CHANGES",
    "ChangeKind",
    "Checkpoint",
    "CheckpointDiff",
    "CheckpointSettings",
    "FileChange",
    "RewindResult",
]
