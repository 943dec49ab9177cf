"""`BashEvents`: shell commands run for `/api/bash` (server-wide, or for one conversation), in
the background or waited for, their output published while they run.

Each command is a `RunningCommand` (`bash_runner.py`) in a run thread. What it did is kept as
the reference server keeps it: a `BashCommand` when it starts, then `BashOutput` events: one
per `OH_BASH_STREAM_SECONDS` while output comes (no exit code yet) and a last one with the
exit code, searchable by kind, command id and order, and streamed to `/sockets/bash-events`
subscribers. Only the newest `max_events` are kept (in memory: a restart forgets them, as the
reference's clients expect of a fresh server). A running command can be stopped: its whole
tree is killed and its last output says so with the exit code.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from enum import StrEnum
from pathlib import Path

from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.errors import BadRequestError, NotFoundError
from openhands.agent_server.services.bash_runner import RunningCommand
from openhands.agent_server.services.sandboxing import refuse_unsafe_workspace
from openhands.sdk.wire import BashCommand, BashOutput, ExecuteCommandRequest

BashEvent = BashCommand | BashOutput

STOP_WAIT_SECONDS = 10.0
"""How long a stop request waits for the stopped command's last output."""


class BashSortOrder(StrEnum):
    """Order of a bash event search (the reference's names)."""

    TIMESTAMP = "TIMESTAMP"
    TIMESTAMP_DESC = "TIMESTAMP_DESC"


class BashEvents:
    """The commands run here for `/api/bash` and their outputs, newest kept."""

    def __init__(
        self,
        pool: BlockingPool,
        default_cwd: Path,
        max_events: int,
        *,
        stream_seconds: float = 0.0,
    ) -> None:
        """Run commands in `pool`, in `default_cwd` unless asked otherwise; keep `max_events`;
        publish running output every `stream_seconds` (0: only at the end)."""
        self._pool = pool
        self.default_cwd = default_cwd
        self._stream_seconds = stream_seconds
        self._events: deque[tuple[int, BashEvent]] = deque(maxlen=max_events)
        self._sequence = 0
        self._running: dict[uuid.UUID, RunningCommand] = {}
        self._lock = threading.Lock()
        self._watchers: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()

    # -- running ----------------------------------------------------------------------------

    async def execute(
        self, request: ExecuteCommandRequest, *, workspace: Path | None = None
    ) -> BashOutput:
        """Run the command and answer its whole output (every chunk joined) once it ended.

        InvalidRequestError (422) for a `cwd` the sandbox cannot take (`/`, /proc, ...).
        """
        command = self._prepare(request)
        parts: list[str] = []

        def collect(output: BashOutput) -> None:
            if output.stdout:
                parts.append(output.stdout)
            self._record(output)

        runner = self._runner(command, request, workspace, collect)
        final = await self._pool.run_to_completion(runner.run)
        return final.model_copy(update={"stdout": "".join(parts) or None})

    def start(
        self, request: ExecuteCommandRequest, *, workspace: Path | None = None
    ) -> BashCommand:
        """Start the command in the background; its output is recorded as it comes."""
        command = self._prepare(request)
        runner = self._runner(command, request, workspace, self._record)
        future = self._pool.submit(runner.run)
        future.add_done_callback(lambda _: None)  # failures are recorded as outputs by run()
        return command

    async def stop(self, command_id: uuid.UUID) -> None:
        """Stop a running command and wait for its last output; nothing for one that ended.

        NotFoundError for a command this server never ran (or no longer keeps).
        """
        with self._lock:
            runner = self._running.get(command_id)
            known = runner is not None or any(e.id == command_id for _, e in self._events)
        if not known:
            raise NotFoundError(f"Bash command {command_id} is not known to this server.")
        if runner is not None:
            runner.stop()
            await asyncio.to_thread(runner.done.wait, STOP_WAIT_SECONDS)

    def clear(self) -> int:
        """Forget every kept command and output (running commands go on); how many."""
        with self._lock:
            count = len(self._events)
            self._events.clear()
        return count

    # -- reading ------------------------------------------------------------------------------

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
            events = [event for _, event in self._events]
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
        found = self.get_many([event_id])[0]
        if found is None:
            raise NotFoundError(f"Bash event {event_id} is not known to this server.")
        return found

    def get_many(self, event_ids: list[str]) -> list[BashEvent | None]:
        """The events of these ids, in order; None for one not kept."""
        with self._lock:
            by_id = {event.id.hex: event for _, event in self._events}
        return [by_id.get(_hex(event_id)) for event_id in event_ids]

    async def follow(self, *, replay: bool) -> AsyncIterator[BashEvent]:
        """Every event recorded from now on (after the kept ones, with `replay`), as they come;
        for the bash socket. Ends when the caller stops iterating."""
        loop = asyncio.get_running_loop()
        wake = asyncio.Event()
        watcher = (loop, wake)
        with self._lock:
            self._watchers.add(watcher)
            cursor = 0 if replay else self._sequence
        try:
            while True:
                with self._lock:
                    fresh = [(seq, event) for seq, event in self._events if seq > cursor]
                for seq, event in fresh:
                    cursor = seq
                    yield event
                await wake.wait()
                wake.clear()
        finally:
            with self._lock:
                self._watchers.discard(watcher)

    # -- internals ----------------------------------------------------------------------------

    def _prepare(self, request: ExecuteCommandRequest) -> BashCommand:
        if request.cwd:  # the folder a command runs in is the one its sandbox lets it write
            refuse_unsafe_workspace(request.cwd, ("body", "cwd"))
        cwd = request.cwd or str(self.default_cwd)
        command = BashCommand(command=request.command, cwd=cwd, timeout=request.timeout)
        self._record(command)
        return command

    def _runner(
        self,
        command: BashCommand,
        request: ExecuteCommandRequest,
        workspace: Path | None,
        publish: Callable[[BashOutput], None],
    ) -> RunningCommand:
        cwd = Path(command.cwd or self.default_cwd)
        runner = RunningCommand(
            command.id,
            request.command,
            cwd=cwd,
            workspace=workspace or cwd,
            timeout=request.timeout,
            stream_seconds=self._stream_seconds,
            publish=publish,
            on_end=self._ended,
        )
        with self._lock:
            self._running[command.id] = runner
        return runner

    def _ended(self, command_id: uuid.UUID) -> None:
        with self._lock:
            self._running.pop(command_id, None)

    def _record(self, event: BashEvent) -> None:
        with self._lock:
            self._sequence += 1
            self._events.append((self._sequence, event))
            watchers = list(self._watchers)
        for loop, wake in watchers:
            with contextlib.suppress(RuntimeError):  # its loop closed: the socket is gone
                loop.call_soon_threadsafe(wake.set)


class ConversationBash:
    """The `BashEvents` of each conversation's own bash routes, made on first use."""

    def __init__(self, pool: BlockingPool, max_events: int, stream_seconds: float) -> None:
        """Each conversation's commands run in `pool`; each keeps `max_events`."""
        self._pool = pool
        self._max_events = max_events
        self._stream_seconds = stream_seconds
        self._by_conversation: dict[uuid.UUID, BashEvents] = {}

    def of(self, conversation_id: uuid.UUID, working_dir: Path) -> BashEvents:
        """The conversation's commands (their default folder: `working_dir`)."""
        events = self._by_conversation.get(conversation_id)
        if events is None:
            events = BashEvents(
                self._pool, working_dir, self._max_events, stream_seconds=self._stream_seconds
            )
            self._by_conversation[conversation_id] = events
        return events


def _command_of(event: BashEvent) -> uuid.UUID:
    return event.command_id if isinstance(event, BashOutput) else event.id


def _hex(value: str) -> str:
    try:
        return uuid.UUID(value).hex
    except ValueError:
        return value


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.astimezone()
