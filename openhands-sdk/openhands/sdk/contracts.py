"""The SDK's seams, as small Protocols in one place.

Implementations live elsewhere and are swappable behind these contracts: an event log on disk
or in memory, a local or remote conversation. Code that only needs a contract types against it
here, so pyright checks every driver (the sync goal runner, the agent server, a workflow engine)
against the same promises.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from openhands.sdk.event.base import Event

if TYPE_CHECKING:
    from openhands.sdk.llm.llm import LLM
    from openhands.sdk.llm.message import Message
    from openhands.sdk.workspace.checkpoints import Checkpoint

__all__ = [
    "AgentView",
    "CheckpointingConversation",
    "ConversationExecutionStatus",
    "ConversationStateView",
    "DrivableConversation",
    "EventHistory",
    "EventLog",
    "ObservableConversation",
    "ProfileSource",
    "WorkspaceView",
]


class ConversationExecutionStatus(StrEnum):
    """Where a conversation is in its life cycle."""

    IDLE = "idle"
    RUNNING = "running"
    PAUSED = "paused"
    WAITING_FOR_CONFIRMATION = "waiting_for_confirmation"
    FINISHED = "finished"
    ERROR = "error"
    STUCK = "stuck"

    @property
    def is_terminal(self) -> bool:
        """True for statuses that end a run (finished, error, stuck, paused, or waiting for
        a person to approve a tool call)."""
        return self in (
            ConversationExecutionStatus.WAITING_FOR_CONFIRMATION,
            ConversationExecutionStatus.FINISHED,
            ConversationExecutionStatus.ERROR,
            ConversationExecutionStatus.STUCK,
            ConversationExecutionStatus.PAUSED,
        )


@runtime_checkable
class EventLog(Protocol):
    """The append-only history of one conversation.

    `append` is durable before it returns for logs that persist (the event is on disk, and
    only then may anyone publish it); if the disk refuses, it raises `StorageError` and the
    log is as it was. Reads never see a half-written event.
    """

    def append(self, event: Event) -> None:
        """Store `event` durably (for logs that persist) before returning."""
        ...

    def read(self, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events with index in [start, stop)."""
        ...

    def index_of(self, event_id: str) -> int | None:
        """Position of the event with `event_id`, or None."""
        ...

    def get(self, event_id: str) -> Event | None:
        """The event with `event_id`, or None."""
        ...

    def close(self) -> None:
        """Release files; later appends raise. Closing twice is harmless."""
        ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[Event]: ...

    def __getitem__(self, index: int) -> Event:
        """The event at `index` (negative counts from the end)."""
        ...


# -- what a goal driver needs from a conversation -------------------------------------------


@runtime_checkable
class EventHistory(Protocol):
    """A conversation's events as a reader sees them: a local `EventLog` or a remote mirror."""

    def read(self, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events with index in [start, stop)."""
        ...

    def get(self, event_id: str) -> Event | None:
        """The event with `event_id`, or None."""
        ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[Event]: ...


class ConversationStateView(Protocol):
    """The part of a conversation's state a driver reads: its events and its run status."""

    @property
    def events(self) -> EventHistory:
        """The event history, oldest first."""
        ...

    @property
    def execution_status(self) -> ConversationExecutionStatus:
        """Whether the agent is idle, running, paused, finished, in error or stuck."""
        ...


class AgentView(Protocol):
    """The part of an agent a driver reads: its LLM (whose metrics hold the agent's cost)."""

    @property
    def llm(self) -> LLM:
        """The agent's LLM."""
        ...


class WorkspaceView(Protocol):
    """The part of a workspace a driver reads: where commands such as `verify` run."""

    @property
    def working_dir(self) -> str:
        """The folder the agent works in."""
        ...


class DrivableConversation(Protocol):
    """What `run_goal` needs from any conversation, local or remote."""

    @property
    def state(self) -> ConversationStateView:
        """Events and run status."""
        ...

    @property
    def agent(self) -> AgentView:
        """The agent (its LLM's metrics give the agent's cost)."""
        ...

    @property
    def workspace(self) -> WorkspaceView:
        """Where the agent works."""
        ...

    def send_message(self, message: str | Message, sender: str | None = None) -> None:
        """Append a user message (`sender` names who wrote it when not the person, e.g. the
        goal loop)."""
        ...

    def run(self) -> None:
        """Run the agent until it stops; `ConversationRunError` when the run fails."""
        ...

    def pause(self) -> None:
        """Ask the agent to stop after its current step."""
        ...


@runtime_checkable
class ObservableConversation(DrivableConversation, Protocol):
    """A conversation in this process: a driver may record events and watch every event.

    With one, `run_goal` records the goal's status events and enforces budgets during a run;
    a conversation without these (a remote one) is still driven, round by round.
    """

    def append_event(self, event: Event) -> None:
        """Persist `event` and give it to the callbacks."""
        ...

    def add_callback(self, callback: Callable[[Event], None]) -> None:
        """Call `callback(event)` for every event appended from now on."""
        ...

    def remove_callback(self, callback: Callable[[Event], None]) -> None:
        """Stop calling `callback`."""
        ...


@runtime_checkable
class CheckpointingConversation(Protocol):
    """A conversation that snapshots its workspace (local, or on its server); a goal driver
    takes the goal's checkpoints through it (docs/checkpoints.md)."""

    def checkpoint(self, label: str, *, goal_round: int | None = None) -> Checkpoint:
        """Snapshot the workspace now (a `key="checkpoint"` event); `CheckpointError` or a
        remote error when no snapshot is taken."""
        ...


# -- where a conversation finds LLM profiles ------------------------------------------------


class ProfileSource(Protocol):
    """Where a conversation loads LLM profiles by name (`switch_profile`, the `ask_oracle`
    tool): the user's `LLMProfileStore` (`~/.openhands/profiles`) in a script, the agent
    server's own store (keys sealed on its disk, opened in memory) on a server."""

    def load(self, name: str) -> LLM:
        """The LLM saved as `name` (its key included); a `FileNotFoundError` naming the
        profiles there are when there is none, a `ValueError` when it is not a valid LLM."""
        ...
