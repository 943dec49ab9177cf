"""Killing a process tree, and guarding process groups for the watchdog."""

from __future__ import annotations

import os
import subprocess
import time

import psutil
from openhands.sdk.workspace import (
    kill_process_group,
    register_process_group,
    unregister_process_group,
)
from openhands.sdk.workspace.processes import registered_process_groups, watchdog_pid


def _start(script: str) -> tuple[subprocess.Popen[str], int]:
    """Start `bash -c script` in a new session; return it and the pid it prints first."""
    process = subprocess.Popen(
        ["bash", "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    assert process.stdout is not None
    return process, int(process.stdout.readline())


def _reap(process: subprocess.Popen[str]) -> None:
    process.wait(timeout=5)
    assert process.stdout is not None
    process.stdout.close()


def _dead(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.02)
    return False


def test_a_child_that_moved_to_its_own_group_is_killed_with_the_tree() -> None:
    process, child = _start("set -m; sleep 30 & echo $!; wait")
    assert os.getpgid(child) == child != process.pid

    kill_process_group(process.pid)
    _reap(process)

    assert _dead(child)


def test_an_orphan_left_in_the_session_is_killed() -> None:
    # The subshell is a job of its own (set -m) and exits at once: its `sleep` is then neither
    # in bash's group nor its descendant, only in its session.
    process, orphan = _start("set -m; (sleep 30 > /dev/null & echo $!); sleep 30")
    assert psutil.Process(orphan).ppid() != process.pid

    kill_process_group(process.pid)
    _reap(process)

    assert _dead(orphan)


def test_registration_starts_one_watchdog_and_is_undone_by_unregister() -> None:
    process = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        register_process_group(process.pid)
        first = watchdog_pid()
        assert process.pid in registered_process_groups()
        assert first is not None and psutil.Process(first).is_running()

        unregister_process_group(process.pid)
        register_process_group(process.pid)

        assert watchdog_pid() == first
    finally:
        kill_process_group(process.pid)
        process.wait(timeout=5)
    assert process.pid not in registered_process_groups()
