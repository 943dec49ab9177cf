"""Running the tool calls of one LLM reply at the same time, up to a limit.

Calls that touch the same resource still take turns: each call holds the locks of the
resources its tool declares for it (`declared_resources(action)`); a tool that declares
nothing gets one lock for all its calls (a terminal session runs one command at a time),
and one that declares no resources at all takes no lock. Results come back in call order.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from openhands.sdk.tool.resources import DeclaredResources
from openhands.sdk.tool.schema import Action
from openhands.sdk.tool.tool import ToolDefinition

__all__ = ["DeclaredResources", "ParallelToolExecutor", "ResourceLocks", "lock_keys"]

from openhands.sdk.errors import InvalidArgumentError

CallT = TypeVar("CallT")
ResultT = TypeVar("ResultT")


def lock_keys(tool: ToolDefinition, action: Action | None) -> list[str]:
    """The locks a call of `tool` with `action` holds while it runs (see DeclaredResources)."""
    resources = tool.declared_resources(action) if action is not None else DeclaredResources()
    if not resources.declared:
        return [f"tool:{tool.name}"]
    return sorted(set(resources.keys))


class ResourceLocks:
    """One lock per resource key, taken in sorted order (so two calls never deadlock)."""

    def __init__(self) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    @contextlib.contextmanager
    def hold(self, keys: Sequence[str]) -> Iterator[None]:
        """Hold the locks of `keys` for the duration of the block."""
        with self._guard:
            locks = [self._locks.setdefault(key, threading.Lock()) for key in sorted(set(keys))]
        with contextlib.ExitStack() as stack:
            for lock in locks:
                stack.enter_context(lock)
            yield


class ParallelToolExecutor:
    """Runs a batch of calls on up to `max_workers` threads; results keep the calls' order.

    Each executor has its own locks, so a sub-agent's calls never wait on its parent's.
    """

    def __init__(self, max_workers: int = 1) -> None:
        if max_workers < 1:
            raise InvalidArgumentError(
                f"max_workers must be >= 1 (1 runs the calls one at a time), got {max_workers}"
            )
        self.max_workers = max_workers
        self.locks = ResourceLocks()

    def execute_batch(
        self,
        calls: Sequence[CallT],
        run: Callable[[CallT], ResultT],
        keys: Callable[[CallT], Sequence[str]] = lambda _call: (),
    ) -> list[ResultT]:
        """`run(call)` for every call (holding the locks `keys(call)` names), in call order.

        With one worker or one call everything runs in this thread. A call whose `run`
        raises gets `[AgentErrorEvent]` as its result, naming the call's tool and the error
        (the reference SDK's contract: one broken call never loses the others' results).
        """

        def locked(call: CallT) -> ResultT:
            try:
                with self.locks.hold(keys(call)):
                    return run(call)
            except Exception as exc:
                return _error_result(call, exc)

        if self.max_workers == 1 or len(calls) <= 1:
            return [locked(call) for call in calls]
        # Imported here: concurrent.futures costs ~10 ms, and most agents never need it.
        from concurrent.futures import ThreadPoolExecutor

        workers = min(self.max_workers, len(calls))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tool-call") as pool:
            futures = [pool.submit(locked, call) for call in calls]
        return [future.result() for future in futures]


def _error_result(call: Any, exc: Exception) -> Any:
    """`[AgentErrorEvent]` for a call (an ActionEvent, or anything holding one as `event`)."""
    from openhands.sdk.event.action import AgentErrorEvent

    event = getattr(call, "event", call)
    name = str(getattr(event, "tool_name", "") or "unknown")
    return [
        AgentErrorEvent(
            tool_name=name,
            tool_call_id=str(getattr(event, "tool_call_id", "") or ""),
            error=f"Error executing tool {name!r}: {type(exc).__name__}: {exc}",
        )
    ]
