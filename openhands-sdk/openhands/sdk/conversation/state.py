"""`ConversationState`: a conversation's configuration, the state derived from its events, and
its event log.

On disk (`persistence_dir` is the conversation's own folder, `<base>/<id.hex>`):

- `events.jsonl` is the history and the source of truth for everything that changes while
  the conversation works: the execution status, the LLM usage (`stats`) and any other
  `ConversationStateUpdateEvent` key (a goal's status, ...) are the newest update of each key.
  Appending an event costs one fsync and nothing else.
- `base_state.json` holds the configuration (agent without secrets, workspace, limits, hook
  config, title, creation time), rewritten atomically only when it changes, plus a snapshot of
  the derived values as of `events_size` bytes of the log, taken with any such rewrite and
  when the conversation is closed. Reopening reads the snapshot and folds in only the updates
  appended after it (`snapshot.read_snapshot`), so it costs what the last session wrote, not
  the whole history; the events themselves are parsed on first read.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from openhands.sdk.agent.agent import AgentBase
from openhands.sdk.contracts import ConversationExecutionStatus
from openhands.sdk.conversation.branch import (
    BranchView,
    head_of,
    is_tree_node,
)
from openhands.sdk.conversation.config import ConversationConfig
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.errors import ConversationStateError, UnknownEventError
from openhands.sdk.conversation.event_files import EventFiles, event_files_enabled
from openhands.sdk.conversation.event_log import (
    EVENTS_FILE,
    EventLog,
    FileEventLog,
    InMemoryEventLog,
)
from openhands.sdk.conversation.secret_registry import SecretRegistry
from openhands.sdk.conversation.snapshot import (
    BASE_STATE_FILE,
    EVENTS_SIZE_KEY,
    HEAD_KEY,
    STATS_KEY,
    STATUS_KEY,
    invalid_state_error,
    read_snapshot,
)
from openhands.sdk.conversation.state_memory import StateMemory
from openhands.sdk.conversation.types import ConversationTags, validate_tags
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.event.action import ActionEvent
from openhands.sdk.event.base import ROOT_PARENT_ID, Event
from openhands.sdk.event.state import ConversationStateUpdateEvent
from openhands.sdk.hooks.config import HookConfig
from openhands.sdk.io import make_private_dir, remove_leftover_temp_files, write_atomic
from openhands.sdk.llm.message import Message
from openhands.sdk.llm.metrics import Metrics
from openhands.sdk.workspace.local import LocalWorkspace
from pydantic import (
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    model_validator,
)


def _now() -> datetime:
    return datetime.now(UTC)


class ConversationState(ConversationConfig):
    """One conversation's configuration and derived state (`base_state.json`) and its log."""

    model_config = ConfigDict(defer_build=True, extra="ignore", arbitrary_types_allowed=True)

    # -- identity and configuration: base_state.json is rewritten when one of these changes ---
    # (the configuration proper, what a fork copies, is the ConversationConfig base class)
    id: uuid.UUID
    persistence_dir: str | None = Field(
        default=None,
        exclude=True,
        description="This conversation's own folder (`<base>/<id.hex>`); None: in memory only.",
    )
    title: str | None = None
    tags: ConversationTags = Field(
        default_factory=dict,
        description="Key-value labels (keys: lowercase letters and digits; values <= 256 "
        "chars). A fork's title is also kept under 'title', as the reference SDK does.",
    )
    created_at: datetime = Field(default_factory=_now)

    # -- derived from the event log (base_state.json keeps a snapshot) --------------------------
    execution_status: ConversationExecutionStatus = ConversationExecutionStatus.IDLE
    stats: ConversationStats = Field(
        default_factory=ConversationStats, description="LLM usage per usage_id."
    )
    state_updates: dict[str, Any] = Field(
        default_factory=dict,
        description="The newest value of every other ConversationStateUpdateEvent key "
        "(e.g. 'goal').",
    )
    updated_at: datetime = Field(default_factory=_now, description="When the last event was.")

    # One private attribute holding plain objects: pydantic's private-attribute lookup is slow
    # and these are read several times per agent step.
    _live: StateMemory = PrivateAttr()

    @model_validator(mode="before")
    @classmethod
    def _legacy_metrics(cls, data: Any) -> Any:
        # Older files kept `metrics: {usage_id: Metrics}` instead of `stats`.
        if isinstance(data, dict) and "stats" not in data and isinstance(data.get("metrics"), dict):
            data = {**data, "stats": {"usage_to_metrics": data["metrics"]}}
        return data

    def model_post_init(self, __context: Any) -> None:
        folder = self.folder
        if folder is None:
            self._live = StateMemory(InMemoryEventLog())
        else:
            log = FileEventLog(folder)
            self._live = StateMemory(log)
            if event_files_enabled():
                self._live.files = EventFiles(folder, log.path)
        self._live.logged_status = self.execution_status

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        id: uuid.UUID,
        agent: AgentBase | None = None,
        workspace: LocalWorkspace | None = None,
        persistence_dir: str | Path | None = None,
        max_iterations: int | None = None,
        stuck_detection: bool | None = None,
        hook_config: HookConfig | None = None,
        tags: dict[str, str] | None = None,
        *,
        config: ConversationConfig | None = None,
        title: str | None = None,
        events: Sequence[Event] = (),
        stats: ConversationStats | None = None,
        created_workspace: bool = False,
    ) -> ConversationState:
        """Reopen the conversation persisted in `persistence_dir`, or create it there.

        `persistence_dir` is the conversation's own folder (None keeps it in memory). `config`
        is a whole configuration (a fork's copy, a server's request); the single arguments
        (`agent`, `workspace`, ...) override its fields. When reopening, whatever is given
        replaces the stored value (the caller's agent carries the live LLM and its key, which
        disk never does) and the rest stays as stored; a changed configuration is saved.
        Creating needs an agent and a workspace; a new conversation may start with a copied
        history (`events`, written with one fsync, as a fork does) and copied usage counts
        (`stats`); `created_workspace` says its working directory was just made for it (only
        used when creating).

        Raises `ConversationStateError` if the stored state cannot be read and
        `StorageError` if the disk refuses.
        """
        given: dict[str, Any] = {} if config is None else config.fields()
        for name, value in (
            ("agent", agent),
            ("workspace", workspace),
            ("max_iterations", max_iterations),
            ("stuck_detection", stuck_detection),
            ("hook_config", hook_config),
        ):
            if value is not None:
                given[name] = value
        folder = Path(persistence_dir) if persistence_dir is not None else None
        stored = read_snapshot(folder) if folder is not None else None
        if stored is not None and folder is not None:
            # One process owns a conversation: a temp file of an interrupted write is stale.
            remove_leftover_temp_files(folder)
            data, snapshot_text = stored
            state = _validate(folder, data)
            if state.id != id:
                raise ConversationStateError(
                    f"{folder} holds conversation {state.id}, not {id}; open it with its own "
                    "id, or remove that folder to start over."
                )
            state._live.saved = snapshot_text
            state._live.saved_config = state.model_dump_json(include=_CONFIG_FIELDS)
            changes: dict[str, Any] = {
                **given,
                "tags": None if tags is None else {**state.tags, **validate_tags(tags)},
                "title": title,
            }
            for name, value in changes.items():
                if value is not None:
                    setattr(state, name, value)
            state.stats.register_llm(state.agent.llm)
            state.save_config()
            return state
        if given.get("agent") is None or given.get("workspace") is None:
            raise InvalidArgumentError(
                f"Conversation {id} is not stored in {folder}: creating it needs an agent and a "
                "workspace (or pass the persistence_dir and id it was saved under)."
            )
        new_folder = folder is not None and not folder.exists()
        try:
            if folder is not None and events:
                make_private_dir(folder)
                lines = "".join(event.model_dump_json() + "\n" for event in events)
                write_atomic(folder / EVENTS_FILE, lines)
            state = cls(
                id=id,
                persistence_dir=str(folder) if folder is not None else None,
                tags=tags or {},
                title=title,
                stats=stats if stats is not None else ConversationStats(),
                **{name: value for name, value in given.items() if value is not None},
            )
            if created_workspace:
                state.created_workspace = True
            state._live.created_folder = new_folder
            if events:
                state._seed(list(events))
            state.stats.register_llm(state.agent.llm)
            state.save()
        except BaseException:
            if new_folder and folder is not None:
                shutil.rmtree(folder, ignore_errors=True)  # a failed creation leaves nothing
            raise
        return state

    @property
    def config(self) -> ConversationConfig:
        """This conversation's whole configuration, as a new object (the agent is shared:
        copy it, e.g. with `fork.copy_agent`, before changing it)."""
        return ConversationConfig.model_construct(None, **self.fields())

    # -- persistence --------------------------------------------------------------------------

    @property
    def folder(self) -> Path | None:
        """This conversation's folder (`persistence_dir` as a Path), or None in memory."""
        return None if self.persistence_dir is None else Path(self.persistence_dir)

    @property
    def metrics(self) -> dict[str, Metrics]:
        """The metrics of each LLM by usage_id (the same objects as `stats.usage_to_metrics`)."""
        return self.stats.usage_to_metrics

    def save(self) -> None:
        """Write `base_state.json` (configuration and snapshot) if anything in it changed.

        Called when the configuration changes and when the conversation is closed; never for
        a status change (those are events). Atomic: a failure raises `StorageError` and
        leaves the previous file as it was.
        """
        self._save(force_snapshot=True)

    def save_config(self) -> None:
        """Write `base_state.json` only if the configuration changed since it was last written."""
        self._save(force_snapshot=False)

    def _save(self, *, force_snapshot: bool) -> None:
        folder = self.folder
        if folder is None:
            return
        live = self._live
        with live.lock:
            config = self.model_dump_json(include=_CONFIG_FIELDS)
            if not force_snapshot and config == live.saved_config:
                return
            size = live.events.size if isinstance(live.events, FileEventLog) else 0
            payload = self._base_state_json(size)
            if payload == live.saved:
                return
            write_atomic(folder / BASE_STATE_FILE, payload)
            live.saved, live.saved_config = payload, config

    def _base_state_json(self, events_size: int) -> str:
        """What `base_state.json` holds: the model (no secrets) plus the snapshot's extent.

        The snapshot's status is the log's: a status only held in memory (a run whose end the
        disk refused to record) must not hide from a reopen that the log says `running`.
        """
        data = self.model_dump(mode="json")
        data[STATUS_KEY] = self._live.logged_status.value
        data[EVENTS_SIZE_KEY] = events_size
        return json.dumps(data, indent=2)

    def mark_created(self) -> None:
        """Say that this process created the conversation's folder (`discard` removes it)."""
        self._live.created_folder = True

    def discard(self) -> None:
        """Close the log and delete the folder if this state created it (a failed creation).

        A conversation that existed before is never deleted.
        """
        self.close()
        folder = self.folder
        if folder is not None and self._live.created_folder:
            shutil.rmtree(folder, ignore_errors=True)

    # -- events -------------------------------------------------------------------------------

    @property
    def events(self) -> EventLog:
        """The conversation's event log (read it; append through the conversation)."""
        return self._live.events

    @property
    def secret_registry(self) -> SecretRegistry:
        """The conversation's secrets (in memory only; see `update_secrets`)."""
        return self._live.secrets

    @property
    def lock(self) -> threading.RLock:
        """Guards status changes and appends; hold it for read-modify-write sequences."""
        return self._live.lock

    def __enter__(self) -> ConversationState:
        """`with conversation.state:` holds `lock` (the reference's way to read the status and
        events while a run goes on without them changing in between)."""
        self._live.lock.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._live.lock.release()

    @property
    def has_events(self) -> bool:
        """True once any event was appended (answered without reading the log)."""
        return not self._live.events.is_empty

    def append_event(self, event: Event) -> Event:
        """Persist `event` (fsynced for file logs), then fold it into the derived state.

        A tree node (any event but a state update) without a `parent_id` is stamped with the
        HEAD and becomes the HEAD; the stamped copy is what is stored and returned. A
        `ConversationStateUpdateEvent` sets its key: `execution_status`, the HEAD
        (`leaf_event_id`), or an entry of `state_updates` (`stats` updates only record the
        live `stats`). Raises `StorageError` if the disk refuses; the state is then unchanged.
        """
        live = self._live
        with live.lock:
            node = is_tree_node(event)
            if node and event.parent_id is None:
                parent = live.head_id()
                if parent is None and not live.events.is_empty:
                    parent = ROOT_PARENT_ID  # a new root after navigate_to(None)
                if parent is not None:
                    event = event.model_copy(update={"parent_id": parent})
            live.events.append(event)
            if live.files is not None:
                live.files.notify(live.events.size)  # type: ignore[union-attr]  # a file log
            if node:
                live.head = event.id
                live.head_known = True
            elif isinstance(event, ConversationStateUpdateEvent):
                self._apply_update(event.key, event.value)
            self.updated_at = event.timestamp
        return event

    def _seed(self, events: list[Event]) -> None:
        """Take `events` as the history of this new conversation (already on disk if it
        persists; a fork's copy keeps the events' ids and parents)."""
        live = self._live
        if isinstance(live.events, InMemoryEventLog):
            for event in events:
                live.events.append(event)
        self.update_event_files()
        live.head = head_of(reversed(events))
        live.head_known = True

    def update_event_files(self) -> None:
        """Bring the per-event copy (`events/event-NNNNN-<id>.json`) up to date with the log.

        A convenience for readers that expect one file per event (off with
        `OH_EVENT_FILES=0`); `events.jsonl` stays the source of truth (see `event_files.py`).
        Called at the end of each run, at close and for a fork: the background copier has
        done most of it by then.
        """
        live = self._live
        files = live.files
        if files is None or not isinstance(live.events, FileEventLog):
            return
        with live.lock:
            size = live.events.size
        files.update(size)  # its own lock: the background copier may be half-way

    def _apply_update(self, key: str, value: Any) -> None:
        live = self._live
        if key == STATUS_KEY:
            # A status this version does not know stays in the log; the state ignores it.
            with contextlib.suppress(ValueError):
                self.execution_status = ConversationExecutionStatus(value)
                live.logged_status = self.execution_status
        elif key == HEAD_KEY:
            live.head = value if isinstance(value, str) else None
            live.head_known = True
        elif key != STATS_KEY:
            self.state_updates[key] = value

    # -- the conversation tree ----------------------------------------------------------------

    @property
    def leaf_event_id(self) -> str | None:
        """The HEAD of the conversation tree: the event the next one follows (None: empty)."""
        live = self._live
        with live.lock:
            return live.head_id()

    def active_branch(self, limit: int | None = None) -> list[Event]:
        """The events from the root to the HEAD, oldest first (`limit`: only the newest).

        Abandoned branches (after `navigate_to` or a fork from an earlier event) are left
        out; state updates, which are not part of the tree, too.
        """
        live = self._live
        with live.lock:
            return live.branch(live.head_id(), limit)

    def branch_to(self, event_id: str, limit: int | None = None) -> list[Event]:
        """The events from the root to `event_id`, oldest first (`limit`: only the newest).

        Raises `UnknownEventError` (a ValueError) if `event_id` is not a node of the log.
        """
        live = self._live
        with live.lock:
            return live.branch(event_id, limit)

    @property
    def view(self) -> BranchView:
        """The active branch's LLM-convertible events (`view.events`)."""
        return BranchView(self.active_branch())

    def require_event(self, event_id: str) -> None:
        """Raise `UnknownEventError` (a ValueError) unless `event_id` names a node of the log."""
        live = self._live
        with live.lock:
            if event_id not in live.folded_tree().parents:
                raise UnknownEventError(
                    f"Event {event_id!r} is not in conversation {self.id} (state updates are "
                    "not branch points either); pick an id from state.events."
                )

    @staticmethod
    def get_unmatched_actions(events: Any) -> list[ActionEvent]:
        """The tool calls of the newest LLM reply that have no result yet: while the
        conversation is `waiting_for_confirmation`, the calls that wait for approval."""
        from openhands.sdk.conversation.confirmation import unmatched_actions

        return unmatched_actions(events)

    def llm_messages(self) -> list[Message]:
        """The LLM message list of the active branch, converting only new events.

        Appending on the active branch extends the list (each event is converted once); after
        the HEAD moved to another branch, the list is rebuilt once from that branch.
        """
        live = self._live
        with live.lock:
            return live.llm_messages()

    def close(self) -> None:
        """Release the event log's file (and stop copying it to per-event files)."""
        if self._live.files is not None:
            self._live.files.close()
        self._live.events.close()


_CONFIG_FIELDS: set[str] = {
    *ConversationConfig.field_names(),
    "id",
    "title",
    "tags",
    "created_at",
}
"""The fields whose change rewrites base_state.json (the others are derived from events)."""


def _validate(folder: Path | None, data: dict[str, Any]) -> ConversationState:
    try:
        return ConversationState.model_validate(data)
    except ValidationError as exc:
        raise invalid_state_error((folder or Path(".")) / BASE_STATE_FILE, exc) from exc
