"""Holding a process tree still: SIGSTOP to every process in it, SIGCONT to let it go.

The agent's terminal may leave jobs running in the background. While the server rewrites
the workspace for the agent (a rewind), such a job could swap a folder for a symlink in the
middle of it, or write files the rewind then records as its own. `freeze_tree` stops the
whole tree first (again and again until no new process appears: a fork between two looks
is caught by the next) and `Frozen.thaw` resumes exactly the processes it stopped.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator

__all__ = ["Frozen", "freeze_tree", "frozen"]

MAX_PASSES = 20
"""How many looks for new processes a freeze takes at most (a fork bomb is not stopped)."""

STOP_WAIT_SECONDS = 2.0
"""How long a freeze waits for the processes it signalled to be stopped (a signal is
delivered when a process next runs; one in an uninterruptible wait takes longer)."""


class Frozen:
    """The processes one `freeze_tree` stopped; `thaw()` resumes them (once)."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids

    def thaw(self) -> None:
        """Send SIGCONT to every process stopped, children first; gone ones are skipped."""
        pids, self.pids = self.pids, []
        for pid in reversed(pids):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGCONT)


def freeze_tree(pid: int) -> Frozen:
    """Stop the process `pid` and every descendant it has (see the module docstring)."""
    import psutil  # only here: freezing is rare

    stopped: list[int] = []
    seen: set[int] = set()
    try:
        root = psutil.Process(pid)
    except psutil.Error:
        return Frozen([])
    for _ in range(MAX_PASSES):
        try:
            found = [root, *root.children(recursive=True)]
        except psutil.Error:
            break
        fresh = [process.pid for process in found if process.pid not in seen]
        if not fresh:
            break
        for item in fresh:
            seen.add(item)
            try:
                os.kill(item, signal.SIGSTOP)
            except (ProcessLookupError, PermissionError):
                continue
            stopped.append(item)
    _wait_stopped(stopped)
    return Frozen(stopped)


def _wait_stopped(pids: list[int]) -> None:
    """Return once every process of `pids` is stopped or gone (or `STOP_WAIT_SECONDS` passed)."""
    import time

    import psutil

    deadline = time.monotonic() + STOP_WAIT_SECONDS
    pending = list(pids)
    pause = 0.0005
    while pending and time.monotonic() < deadline:
        still: list[int] = []
        for pid in pending:
            try:
                if psutil.Process(pid).status() not in (
                    psutil.STATUS_STOPPED,
                    psutil.STATUS_TRACING_STOP,
                    psutil.STATUS_ZOMBIE,
                    psutil.STATUS_DEAD,
                ):
                    still.append(pid)
            except psutil.Error:
                continue  # gone
        pending = still
        if pending:
            time.sleep(pause)
            pause = min(pause * 2, 0.05)


@contextlib.contextmanager
def frozen(pids: list[int]) -> Iterator[None]:
    """Hold the trees of `pids` still for the `with` block."""
    held = [freeze_tree(pid) for pid in pids]
    try:
        yield
    finally:
        for item in reversed(held):
            item.thaw()
