"""The SDK's seams, as small Protocols in one place.

Implementations live elsewhere and are swappable behind these contracts: an event log on disk
or in memory, a local or remote conversation. Code that only needs a contract types against it
here, so pyright checks every driver (the sync goal runner, the agent server, a workflow engine)
against the same promises.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from openhands.sdk.event.base import Event

__all__ = ["EventLog"]


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
