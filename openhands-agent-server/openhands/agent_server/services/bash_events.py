"""`BashEvents`: shell commands run for `/api/bash`, in the background or waited for.

Each command runs like the agent's terminal and `verify` (`run_shell`: bash with the agent's
environment, its whole tree killed at its timeout) in a run thread. What it did is kept as
the reference server keeps it: a `BashCommand` when it starts and one `BashOutput` when it
ends, searchable by kind, command id and order. Only the newest `max_events` are kept (in
memory: a restart forgets them, as the reference's clients expect of a fresh server).
"""

from __future__ import annotations

import threading
import uuid
from collections import deque
from datetime import datetime
from enum import StrEnum
from pathlib import Path

from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.errors import BadRequestError, ConflictError, NotFoundError
from openhands.agent_server.services.sandboxing import refuse_unsafe_workspace
from openhands.sdk.wire import BashCommand, BashOutput, ExecuteCommandRequest
from openhands.sdk.workspace import LocalWorkspace
from openhands.sdk.workspace.shell import run_shell

BashEvent = BashCommand | BashOutput


class BashSortOrder(StrEnum):
    """Order of a bash event search (the reference's names)."""

    TIMESTAMP = "TIMESTAMP"
    TIMESTAMP_DESC = "TIMESTAMP_DESC"


class BashEvents:
    """The commands this server ran for `/api/bash` and their outputs, newest kept."""

    def __init__(self, pool: BlockingPool, default_cwd: Path, max_events: int) -> None:
        """Run commands in `pool`, in `default_cwd` unless asked otherwise; keep `max_events`."""
        self._pool = pool
        self._default_cwd = default_cwd
        self._events: deque[BashEvent] = deque(maxlen=max_events)
        self._running: set[uuid.UUID] = set()
        self._lock = threading.Lock()

    async def execute(self, request: ExecuteCommandRequest) -> BashOutput:
        """Run the command and answer its whole output once it has ended.

        InvalidRequestError (422) for a `cwd` the sandbox cannot take (`/`, /proc, ...).
        """
        command = self._record_start(request)
        return await self._pool.run_to_completion(self._run, request, command.id)

    def start(self, request: ExecuteCommandRequest) -> BashCommand:
        """Start the command in the background; its output is recorded when it ends."""
        command = self._record_start(request)
        future = self._pool.submit(self._run, request, command.id)
        future.add_done_callback(lambda _: None)  # errors are recorded as outputs by _run
        return command

    def stop(self, command_id: uuid.UUID) -> None:
        """Succeed for a command that has ended; NotFoundError for one this server never ran.

        A running command cannot be stopped here yet: ConflictError (it ends at its timeout).
        """
        with self._lock:
            running = command_id in self._running
            known = running or any(e.id == command_id for e in self._events)
        if not known:
            raise NotFoundError(f"Bash command {command_id} is not known to this server.")
        if running:
            raise ConflictError(
                f"Bash command {command_id} is still running and cannot be stopped here yet; "
                "it is killed at its timeout."
            )

    def search(
        self,
        *,
        kind: str | None = None,
        command_id: uuid.UUID | None = None,
        order_gt: int | None = None,
        since: datetime | None = None,
        before: datetime | None = None,
        sort_order: BashSortOrder = BashSortOrder.TIMESTAMP,
        page_id: str | None = None,
        limit: int = 100,
    ) -> tuple[list[BashEvent], str | None]:
        """One page of the events that match, and the id starting the next page."""
        with self._lock:
            events = list(self._events)
        if sort_order is BashSortOrder.TIMESTAMP_DESC:
            events.reverse()
        matching = [
            e
            for e in events
            if (kind is None or e.kind == kind)
            and (command_id is None or _command_of(e) == command_id)
            and (order_gt is None or (isinstance(e, BashOutput) and e.order > order_gt))
            and (since is None or _aware(e.timestamp) >= _aware(since))
            and (before is None or _aware(e.timestamp) < _aware(before))
        ]
        start = 0
        if page_id:
            ids = [e.id.hex for e in matching]
            key = _hex(page_id)
            if key not in ids:
                raise BadRequestError(
                    f"page_id {page_id!r} is not in this listing; pass the next_page_id of a "
                    "previous page, or omit it for the first page."
                )
            start = ids.index(key)
        page = matching[start : start + limit]
        rest = matching[start + limit : start + limit + 1]
        return page, rest[0].id.hex if rest else None

    def get(self, event_id: str) -> BashEvent:
        """One event by id (hex or dashed); NotFoundError if it is not kept."""
        key = _hex(event_id)
        with self._lock:
            for event in self._events:
                if event.id.hex == key:
                    return event
        raise NotFoundError(f"Bash event {event_id} is not known to this server.")

    # -- internals ----------------------------------------------------------------------------

    def _record_start(self, request: ExecuteCommandRequest) -> BashCommand:
        if request.cwd:  # the folder a command runs in is the one its sandbox lets it write
            refuse_unsafe_workspace(request.cwd, ("body", "cwd"))
        command = BashCommand(command=request.command, cwd=request.cwd, timeout=request.timeout)
        with self._lock:
            self._events.append(command)
            self._running.add(command.id)
        return command

    def _run(self, request: ExecuteCommandRequest, command_id: uuid.UUID) -> BashOutput:
        try:
            folder = Path(request.cwd) if request.cwd else self._default_cwd
            cwd = LocalWorkspace(working_dir=str(folder)).ensure_exists()
            result = run_shell(request.command, cwd, timeout=request.timeout)
            output = BashOutput(
                command_id=command_id,
                exit_code=result.exit_code,
                stdout=result.output or None,
                stderr=result.stderr or None,
                command=request.command,
                timed_out=result.timed_out,
            )
        except Exception as exc:  # a folder that cannot be made: an answer, not a lost command
            output = BashOutput(
                command_id=command_id,
                exit_code=-1,
                stderr=f"{type(exc).__name__}: {exc}",
                command=request.command,
            )
        with self._lock:
            self._events.append(output)
            self._running.discard(command_id)
        return output


def _command_of(event: BashEvent) -> uuid.UUID:
    return event.command_id if isinstance(event, BashOutput) else event.id


def _hex(value: str) -> str:
    try:
        return uuid.UUID(value).hex
    except ValueError:
        return value


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.astimezone()
