"""`freeze_tree` stops a process and every descendant (also one forked meanwhile) and
`thaw` resumes exactly those: how a rewind holds the agent's background jobs still."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator

import psutil
import pytest
from openhands.sdk.workspace.freeze import freeze_tree, frozen
from waits import EVENT_WAIT

TREE = (
    "import subprocess, sys, time\n"
    "children = [subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])"
    " for _ in range(3)]\n"
    "print('ready', flush=True)\n"
    "time.sleep(600)\n"
)


@pytest.fixture
def tree() -> Iterator[psutil.Process]:
    process = subprocess.Popen(
        [sys.executable, "-c", TREE], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    yield psutil.Process(process.pid)
    for item in [psutil.Process(process.pid), *psutil.Process(process.pid).children(True)]:
        item.kill()
    process.wait()
    process.stdout.close()


def _states(root: psutil.Process) -> set[str]:
    return {item.status() for item in [root, *root.children(recursive=True)]}


def _running_again(root: psutil.Process) -> None:
    """Wait for SIGCONT to reach every process (delivery is asynchronous)."""
    deadline = time.monotonic() + EVENT_WAIT
    while psutil.STATUS_STOPPED in _states(root):
        assert time.monotonic() < deadline, "the tree was not resumed"
        time.sleep(0.01)


def test_a_frozen_tree_is_stopped_whole_and_thawed_whole(tree: psutil.Process) -> None:
    held = freeze_tree(tree.pid)
    assert len(held.pids) == 4
    assert _states(tree) == {psutil.STATUS_STOPPED}
    held.thaw()
    _running_again(tree)
    held.thaw()  # a second thaw does nothing


def test_the_context_manager_thaws_after_an_error(tree: psutil.Process) -> None:
    with pytest.raises(RuntimeError), frozen([tree.pid]):
        assert _states(tree) == {psutil.STATUS_STOPPED}
        raise RuntimeError("the rewind failed")
    _running_again(tree)


def test_a_process_that_is_gone_freezes_nothing() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert freeze_tree(gone.pid).pids == []
