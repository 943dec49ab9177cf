"""Child processes that never outlive this process, and killing a process tree.

Every process the agent can start (the terminal's shell, `verify`, hooks; later MCP servers)
runs in its own session, so its whole tree shares one process group / session id. Two tools
act on such a group:

- `kill_process_group(pgid)`: SIGKILL the group, the session it leads and every descendant
  of its leader (psutil), e.g. when a command times out or a terminal closes.
- `register_process_group(pgid)` / `unregister_process_group(pgid)`: while registered, the
  group is killed when this process dies, even by SIGKILL. A small watchdog process (one per
  process that registers anything, started on first use, see `_watchdog.py`) holds the read
  end of a pipe whose only writer is this process; when this process dies the kernel closes
  the pipe and the watchdog kills every registered group, then exits.

Why a watchdog: `PR_SET_PDEATHSIG` reaches only the direct child (bash, not the `sleep` it
started) and fires when the forking *thread* exits, which in a server is any worker thread.
Limits: a process that leaves its group and session (`setsid`) and is orphaned before it is
killed is not found; a container or cgroup is the boundary for hostile code. A group
registered in the microseconds between its start and the registration is not yet covered.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

logger = logging.getLogger(__name__)

_WATCHDOG = Path(__file__).with_name("_watchdog.py")


class _Watchdog:
    """This process's end of the watchdog pipe, started on first registration."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._registered: set[int] = set()
        self._pipe: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._failed = False

    def register(self, pgid: int) -> None:
        with self._lock:
            self._registered.add(pgid)
            self._send(f"+{pgid}\n")

    def unregister(self, pgid: int) -> None:
        with self._lock:
            if pgid in self._registered:
                self._registered.discard(pgid)
                self._send(f"-{pgid}\n")

    def registered(self) -> frozenset[int]:
        with self._lock:
            return frozenset(self._registered)

    def pid(self) -> int | None:
        with self._lock:
            return self._process.pid if self._process is not None else None

    def forget_after_fork(self) -> None:
        """In a forked child: drop the parent's pipe so the parent's death still closes it."""
        self._lock = threading.Lock()
        self._registered = set()
        if self._process is not None:
            _inherited.append(self._process)  # the parent's child: never wait for it here
        if self._pipe is not None:
            with contextlib.suppress(OSError):
                os.close(self._pipe)
        self._pipe = None
        self._process = None
        self._failed = False

    def _send(self, line: str) -> None:
        for _ in range(2):  # a watchdog that died is started again with every registration
            if self._pipe is None and not self._start():
                return
            assert self._pipe is not None
            try:
                os.write(self._pipe, line.encode())
                return
            except OSError:
                self._close()
                line = "".join(f"+{pgid}\n" for pgid in sorted(self._registered))
                if not line:
                    return

    def _start(self) -> bool:
        if self._failed:
            return False
        read_end, write_end = os.pipe()  # both close-on-exec: no other child inherits them
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", str(_WATCHDOG)],
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd="/",  # holds no working folder (or mount) busy
                start_new_session=True,  # a Ctrl-C to our process group does not reach it
            )
        except OSError as exc:
            os.close(write_end)
            self._failed = True
            logger.warning(
                "Could not start the process watchdog (%s): processes started for the agent "
                "may outlive this process if it is killed.",
                exc,
            )
            return False
        finally:
            os.close(read_end)
        self._pipe = write_end
        return True

    def _close(self) -> None:
        if self._pipe is not None:
            with contextlib.suppress(OSError):
                os.close(self._pipe)
            self._pipe = None
        if self._process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=1)
            self._process = None


_inherited: list[subprocess.Popen[bytes]] = []
_watchdog = _Watchdog()
os.register_at_fork(after_in_child=_watchdog.forget_after_fork)


def register_process_group(pgid: int) -> None:
    """Kill process group `pgid` (and the session it leads) if this process dies first.

    Start the child with `start_new_session=True` and register its pid right away. Unregister
    it once it has ended (or call `kill_process_group`, which does both).
    """
    _watchdog.register(pgid)


def unregister_process_group(pgid: int) -> None:
    """Stop guarding `pgid`; what is left of it then survives this process."""
    _watchdog.unregister(pgid)


def registered_process_groups() -> frozenset[int]:
    """The process groups currently guarded for this process."""
    return _watchdog.registered()


def watchdog_pid() -> int | None:
    """The watchdog's pid, or None before the first registration."""
    return _watchdog.pid()


@contextlib.contextmanager
def guarded_process_group(pgid: int) -> Iterator[None]:
    """Register `pgid` for the block; afterwards forget it once it has no process left.

    A group that still has processes (a command's background job) stays registered, so it
    still dies with this process; the watchdog forgets it once it is empty.
    """
    register_process_group(pgid)
    try:
        yield
    finally:
        if not process_group_alive(pgid):
            unregister_process_group(pgid)


def process_group_alive(pgid: int) -> bool:
    """True while any process is in group `pgid`."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_process_group(pgid: int) -> None:
    """SIGKILL group `pgid`, the session it leads and all descendants of its leader.

    Call it before reaping the leader (`wait()`), so its pid cannot belong to another process
    yet. Descendants are found through psutil, so a child that moved to a group of its own is
    killed too while its ancestry is known. The group is then forgotten by the watchdog.
    """
    import psutil

    def running(process: psutil.Process) -> bool:
        try:
            return process.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    try:
        for _ in range(3):  # again, for children forked while we were killing
            victims: dict[int, psutil.Process] = {}
            with contextlib.suppress(psutil.Error, OSError):
                # Only a leader of its own group or session: a reaped leader's pid may already
                # name an unrelated process, whose tree must not be touched.
                if pgid in (os.getpgid(pgid), os.getsid(pgid)):
                    leader = psutil.Process(pgid)
                    victims[pgid] = leader
                    victims.update((child.pid, child) for child in leader.children(recursive=True))
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
            for process in psutil.process_iter():
                with contextlib.suppress(OSError):
                    if os.getsid(process.pid) == pgid:
                        victims[process.pid] = process
            alive = [process for process in victims.values() if running(process)]
            if not alive:
                return
            for process in alive:
                with contextlib.suppress(psutil.Error):
                    process.kill()
    finally:
        unregister_process_group(pgid)
