"""Persisted conversations seen from outside: list them, summarize them, reopen one.

A folder of conversations (`<persistence_dir>/<id.hex>/`, as `Conversation(...,
persistence_dir=...)` writes them) is read through this module, never by parsing its files:

- `list_conversation_ids(persistence_dir)`: the ids stored there (one directory listing).
- `load_conversation_summary(persistence_dir, id)`: what a listing shows (title, times,
  status, the latest goal status, agent without secrets, workspace, usage) from
  `base_state.json` and the part of `events.jsonl` written after its last snapshot; it never
  parses the history, so summarizing 5,000 conversations costs the same whatever their length.
- Reopening one fully: `LocalConversation(agent, persistence_dir=..., conversation_id=...)`,
  with `agent=None` for the stored agent (whose LLM has no key: fill one in from the summary's
  agent and pass that instead when a key is needed) and the stored workspace and limits.

A summary whose `execution_status` is `running` while no process runs the conversation means
its process died mid-run; reopening it records that (see `LocalConversation`).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Container
from datetime import datetime
from pathlib import Path
from typing import Any

from openhands.sdk.agent.agent import Agent, AgentBase
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.errors import ConversationStateError
from openhands.sdk.conversation.event_log import EVENTS_FILE
from openhands.sdk.conversation.snapshot import (
    BASE_STATE_FILE,
    invalid_state_error,
    read_persisted_state,
)
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.errors import storage_error
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.security.confirmation_policy import ConfirmationPolicy, NeverConfirm
from openhands.sdk.workspace.local import LocalWorkspace
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

GOAL_STATE_KEY = "goal"
"""The `key` of the `ConversationStateUpdateEvent`s that carry a goal's status (the goal
package writes them; a conversation's summary reads the latest)."""

__all__ = [
    "ConversationSummary",
    "list_conversation_ids",
    "load_conversation_summary",
    "remove_unfinished",
]


class ConversationSummary(BaseModel):
    """One persisted conversation as a listing shows it, read without parsing its events."""

    model_config = ConfigDict(defer_build=True, extra="ignore")

    id: uuid.UUID
    title: str | None = None
    tags: dict[str, str] = Field(default_factory=dict, description="Its key-value labels.")
    created_at: datetime
    updated_at: datetime = Field(description="When its last event was written.")
    execution_status: ConversationExecutionStatus = Field(
        description="As the log last recorded it; `running` with no live process: it died."
    )
    goal: dict[str, Any] | None = Field(
        default=None, description="The value of the latest goal status update, if any."
    )
    agent: AgentBase = Field(description="The stored agent spec; its LLM has no key.")
    workspace: LocalWorkspace
    created_workspace: bool = Field(
        default=False, description="Whether its working directory was made for it (or its source)."
    )
    worktree: bool = Field(
        default=False, description="Whether that directory is in a git worktree made for it."
    )
    worktree_git_dir: str | None = Field(
        default=None, description="Git's folder for that worktree in its repository."
    )
    parent_conversation_id: uuid.UUID | None = Field(
        default=None, description="The conversation that started it (a child's link)."
    )
    max_iterations: int = 500
    hook_config: HookConfig | None = None
    stats: ConversationStats = Field(default_factory=ConversationStats)
    persistence_dir: str = Field(description="The conversation's own folder.")
    confirmation_policy: ConfirmationPolicy = Field(
        default_factory=NeverConfirm, description="Which tool calls wait for approval."
    )

    @field_validator("agent", mode="before")
    @classmethod
    def _agent_from_json(cls, value: Any) -> Any:
        return Agent.model_validate(value) if isinstance(value, dict) else value


def list_conversation_ids(persistence_dir: str | Path) -> list[uuid.UUID]:
    """The ids of the conversations stored in `persistence_dir`, in folder-name order.

    Only folders named by a conversation id count (hidden and other entries are skipped); a
    missing `persistence_dir` has none. A folder may still turn out empty or damaged when
    its summary is loaded.
    """
    try:
        entries = sorted(os.scandir(persistence_dir), key=lambda entry: entry.name)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise storage_error("list", persistence_dir, exc) from exc
    ids: list[uuid.UUID] = []
    for entry in entries:
        if len(entry.name) != 32 or not entry.is_dir():
            continue
        try:
            ids.append(uuid.UUID(hex=entry.name))
        except ValueError:
            continue
    return ids


def load_conversation_summary(
    persistence_dir: str | Path, conversation_id: uuid.UUID
) -> ConversationSummary | None:
    """The summary of a stored conversation, or None if it was never (completely) created.

    Raises `ConversationStateError` (a ValueError) if its files are damaged, naming the file
    and the fix, and `StorageError` if the disk refuses.
    """
    folder = Path(persistence_dir) / conversation_id.hex
    data = read_persisted_state(folder)
    if data is None:
        if _holds_history(folder):
            raise ConversationStateError(
                f"{folder / BASE_STATE_FILE} is missing although the conversation has events; "
                "restore it from a backup, or remove that folder to start over."
            )
        return None
    updates = data.get("state_updates")
    goal = updates.get(GOAL_STATE_KEY) if isinstance(updates, dict) else None
    try:
        return ConversationSummary.model_validate(
            {**data, "goal": goal if isinstance(goal, dict) else None}
        )
    except ValidationError as exc:
        raise invalid_state_error(folder / BASE_STATE_FILE, exc) from exc


def remove_unfinished(
    persistence_dir: str | Path, known: Container[str] = frozenset()
) -> list[Path]:
    """Remove what a crash left of a creation or a fork in `persistence_dir`; return it.

    That is: a fork's staging folder (`.forking-...`, written before the fork is renamed into
    place) and a conversation folder holding nothing but an empty log (a creation cut off
    before its first `base_state.json`). A folder with events but no `base_state.json` is
    kept: it holds history, and `load_conversation_summary` reports it. Folders named in
    `known` (conversations the caller knows are complete) are not looked into. Only call this
    while nothing creates or forks conversations in that folder (a server at start-up).
    """
    from openhands.sdk.conversation.fork import FORK_STAGING_PREFIX

    root = Path(persistence_dir)
    try:
        entries = list(os.scandir(root))
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise storage_error("list", root, exc) from exc
    removed: list[Path] = []
    for entry in entries:
        if entry.name in known or not entry.is_dir(follow_symlinks=False):
            continue
        folder = root / entry.name
        if entry.name.startswith(FORK_STAGING_PREFIX):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
            continue
        if len(entry.name) != 32 or (folder / BASE_STATE_FILE).exists():
            continue
        try:
            uuid.UUID(hex=entry.name)
        except ValueError:
            continue
        if not _holds_history(folder):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _holds_history(folder: Path) -> bool:
    """True if `folder` has anything but an empty event log (what a cut-off creation leaves)."""
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        raise storage_error("list", folder, exc) from exc
    return any(
        entry.name != EVENTS_FILE or entry.stat().st_size > 0
        for entry in entries
        if not entry.name.startswith(".")
    )
