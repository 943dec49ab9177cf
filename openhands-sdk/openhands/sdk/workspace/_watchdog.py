"""The watchdog program: kills registered process groups when its parent process dies.

Run as `python -I -S _watchdog.py` by `openhands.sdk.workspace.processes`, with the read end
of a pipe as stdin; only the parent holds the write end. The parent writes one line per
change: `+<pgid>` to register a process group (and the session it leads, if any), `-<pgid>`
to forget it. When the parent dies, however it dies (SIGKILL included), the kernel closes the
write end, the read returns EOF, and the watchdog SIGKILLs every process still in a registered
group or session, then exits.

Standard library only and no package import (it must start fast and work whatever the
parent's `sys.path`); it ignores SIGINT, SIGTERM and SIGHUP so that a Ctrl-C or a service
manager's stop signal reaches the parent without taking the watchdog down before the pipe
closes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

PRUNE_EVERY = 64
"""Registered entries beyond which the watchdog drops the groups that have no process left."""


def _start_time(pid: int) -> str | None:
    """The kernel's start time of `pid` (field 22 of /proc/<pid>/stat), or None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[19].decode() if len(fields) > 19 else None


def _members(ids: set[int]) -> list[int]:
    """Every live process whose process group or session is in `ids`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        with contextlib.suppress(OSError):
            if os.getpgid(pid) in ids or os.getsid(pid) in ids:
                found.append(pid)
    return found


def _ours(registry: dict[int, str | None]) -> set[int]:
    """The registered ids still owned by our groups (a reused leader pid is someone else's).

    While any process is in a group or session, Linux does not hand its id out as a new pid;
    so a live process with that pid but another start time (or one alive although the leader
    had already exited when it was registered) means our group is gone.
    """
    return {pgid for pgid, started in registry.items() if _start_time(pgid) in (None, started)}


def _kill_all(registry: dict[int, str | None]) -> None:
    ids = _ours(registry)
    if not ids:
        return
    for _ in range(3):  # again, for children forked while we were killing
        victims = _members(ids)
        if not victims:
            return
        for pid in victims:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _prune(registry: dict[int, str | None]) -> None:
    ids = _ours(registry)
    alive = set()
    for pid in _members(ids):
        with contextlib.suppress(OSError):
            alive.update((os.getpgid(pid), os.getsid(pid)))
    for pgid in list(registry):
        if pgid not in alive or pgid not in ids:
            del registry[pgid]


def main() -> None:
    """Read registrations from stdin until EOF, then kill what is still registered."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    registry: dict[int, str | None] = {}
    pending = b""
    while True:
        try:
            data = os.read(0, 65536)
        except InterruptedError:
            continue
        except OSError:
            data = b""
        if not data:
            break
        pending += data
        *lines, pending = pending.split(b"\n")
        for line in lines:
            with contextlib.suppress(ValueError):
                pgid = int(line[1:])
                if line.startswith(b"+") and pgid > 1:
                    registry[pgid] = _start_time(pgid)
                elif line.startswith(b"-"):
                    registry.pop(pgid, None)
        if len(registry) > PRUNE_EVERY:
            _prune(registry)
    _kill_all(registry)


if __name__ == "__main__":
    main()
    sys.exit(0)
