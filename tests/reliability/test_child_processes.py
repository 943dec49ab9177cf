"""No process started for the agent outlives the process that started it, even on SIGKILL.

Each test starts a real Python process that runs a verify command, a hook or a terminal
command which starts a `sleep` of a duration no other test uses (found by its command line:
inside a sandbox, a pid the command prints means nothing outside its PID namespace). Once that
process has registered a group holding the sleep (or one of its ancestors) with its watchdog
(a thread in it says so in a `ready` file), the test kills it with SIGKILL and waits
(bounded) for the sleep to be gone.

Why wait for `ready` and not for the sleep: the command runs as soon as it is started, and
the group is registered just after; the first registration also starts the watchdog. A kill
in between would test that window, not the guard: under a heavy load it lasted long enough to
fail this suite once.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest
from child_processes import Sleeper
from waits import EVENT_WAIT

GONE_WITHIN = EVENT_WAIT
"""Seconds the sleep may take to die after its starter was killed (polled, not slept)."""

START_WITHIN = EVENT_WAIT
"""Seconds a starter may take to import the SDK and start its command (a loaded machine)."""

ANNOUNCE_REGISTERED = """
import os, threading, time
import psutil
from openhands.sdk.workspace.processes import registered_process_groups

def _guarded(process):
    guarded = registered_process_groups()
    for each in [process, *process.parents()]:
        try:
            if os.getpgid(each.pid) in guarded or os.getsid(each.pid) in guarded:
                return True
        except OSError:
            pass
    return False

def _announce():
    while True:
        for process in psutil.process_iter(["cmdline"]):
            try:
                if process.info["cmdline"] == ["sleep", SECONDS] and _guarded(process):
                    open("ready", "w").close()
                    return
            except psutil.Error:
                pass
        time.sleep(0.02)

threading.Thread(target=_announce, daemon=True).start()
"""
"""Prepended to a starter's script: writes `ready` once a group holding the sleep is
registered (SECONDS is defined before it)."""


def _sleep(sleeper: Sleeper) -> str:
    """The agent's command: a child that does not die by itself within the test."""
    return f"{sleeper.command} > /dev/null 2>&1 & wait"


def _gone(process: psutil.Process) -> bool:
    try:
        return not process.is_running() or process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _wait_for(predicate: Callable[[], object], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return bool(predicate())


class Starter:
    """A Python process running `script` in `workdir`, and the sleep it started.

    With a `sleeper`, the sleep is found by its command line, and (when `guarded`) the
    starter returns once a group holding it is registered with the watchdog. Without one,
    the script writes the sleep's pid to `sleep.pid` itself (a process it started directly).
    """

    def __init__(
        self,
        workdir: Path,
        script: str,
        *,
        sleeper: Sleeper | None = None,
        guarded: bool = True,
    ) -> None:
        self.workdir = workdir
        prelude = ""
        if sleeper is not None and guarded:
            prelude = f"SECONDS = {sleeper.seconds!r}\n{ANNOUNCE_REGISTERED}"
        self.process = subprocess.Popen(
            [sys.executable, "-c", prelude + textwrap.dedent(script)], cwd=workdir
        )
        if sleeper is not None:
            assert _wait_for(sleeper.running, START_WITHIN), "the command never started its sleep"
            if guarded:
                assert _wait_for((workdir / "ready").exists, START_WITHIN), (
                    "the sleep's group was never registered with the watchdog"
                )
            self.sleep = sleeper.running()[0]
        else:
            pid_file = workdir / "sleep.pid"
            assert _wait_for(
                lambda: pid_file.exists() and pid_file.read_text().strip(), START_WITHIN
            ), "the script never started its sleep"
            self.sleep = psutil.Process(int(pid_file.read_text()))

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def cleanup(self) -> None:
        if self.process.poll() is None:
            self.kill()
        if not _gone(self.sleep):
            self.sleep.kill()


Start = Callable[..., Starter]


@pytest.fixture
def start(workspace_dir: Path) -> Iterator[Start]:
    """`start(script)`: a Starter in the workspace; whatever is left is killed at teardown."""
    started: list[Starter] = []

    def run(script: str, **options: object) -> Starter:
        starter = Starter(workspace_dir, script, **options)  # type: ignore[arg-type]
        started.append(starter)
        return starter

    yield run
    for starter in started:
        starter.cleanup()


def test_a_verify_command_dies_with_the_process_that_ran_it(start: Start, sleeper: Sleeper) -> None:
    starter = start(
        f"""
        from openhands.sdk.conversation.goal import run_verify_command
        run_verify_command({_sleep(sleeper)!r}, ".", timeout=120)
        """,
        sleeper=sleeper,
    )

    starter.kill()

    assert _wait_for(lambda: _gone(starter.sleep), GONE_WITHIN)


def test_a_hook_dies_with_the_process_that_ran_it(start: Start, sleeper: Sleeper) -> None:
    starter = start(
        f"""
        from openhands.sdk.hooks import HookConfig, HookEventType, HookRunner
        config = HookConfig.model_validate(
            {{"stop": [{{"hooks": [{{"command": {_sleep(sleeper)!r}, "timeout": 120}}]}}]}}
        )
        HookRunner(config, ".").run(HookEventType.STOP, {{}})
        """,
        sleeper=sleeper,
    )

    starter.kill()

    assert _wait_for(lambda: _gone(starter.sleep), GONE_WITHIN)


def test_a_terminal_job_that_ignores_hangup_dies_with_the_process_that_ran_it(
    start: Start, sleeper: Sleeper
) -> None:
    # nohup: the pty closing sends SIGHUP, which alone would end an ordinary job.
    command = f"nohup {_sleep(sleeper)}"
    starter = start(
        f"""
        from openhands.tools.terminal import TerminalAction, TerminalExecutor
        TerminalExecutor(".")(TerminalAction(command={command!r}, timeout=120))
        """,
        sleeper=sleeper,
    )

    starter.kill()

    assert _wait_for(lambda: _gone(starter.sleep), GONE_WITHIN)


def test_a_group_unregistered_before_the_death_survives_it(start: Start) -> None:
    starter = start(
        """
        import subprocess, time
        from openhands.sdk.workspace import register_process_group, unregister_process_group
        sleep = subprocess.Popen(["sleep", "40"], start_new_session=True)
        register_process_group(sleep.pid)
        unregister_process_group(sleep.pid)
        open("sleep.pid", "w").write(str(sleep.pid))
        time.sleep(120)
        """,
        guarded=False,
    )

    starter.kill()

    assert not _wait_for(lambda: _gone(starter.sleep), 2.0)


def test_the_watchdog_exits_when_its_process_dies(start: Start, sleeper: Sleeper) -> None:
    starter = start(
        f"""
        import threading, time
        from openhands.sdk.conversation.goal import run_verify_command
        from openhands.sdk.workspace.processes import watchdog_pid
        threading.Thread(
            target=run_verify_command, args=({_sleep(sleeper)!r}, "."), daemon=True
        ).start()
        while watchdog_pid() is None:
            time.sleep(0.01)
        open("watchdog.pid", "w").write(str(watchdog_pid()))
        time.sleep(120)
        """,
        sleeper=sleeper,
    )
    assert _wait_for(lambda: (starter.workdir / "watchdog.pid").exists(), START_WITHIN)
    watchdog = psutil.Process(int((starter.workdir / "watchdog.pid").read_text()))

    starter.kill()

    assert _wait_for(lambda: _gone(starter.sleep), GONE_WITHIN)
    assert _wait_for(lambda: _gone(watchdog), GONE_WITHIN)


def test_a_killed_watchdog_is_replaced_and_still_guards_earlier_groups(
    start: Start, workspace_dir: Path
) -> None:
    starter = start(
        """
        import os, signal, subprocess, time
        from openhands.sdk.workspace import register_process_group
        from openhands.sdk.workspace.processes import watchdog_pid
        first = subprocess.Popen(["sleep", "40"], start_new_session=True)
        register_process_group(first.pid)
        old = watchdog_pid()
        os.kill(old, signal.SIGKILL)
        os.waitpid(old, 0)
        second = subprocess.Popen(["sleep", "40"], start_new_session=True)
        register_process_group(second.pid)
        assert watchdog_pid() not in (None, old)
        open("second.pid", "w").write(str(second.pid))
        open("sleep.pid", "w").write(str(first.pid))
        time.sleep(120)
        """
    )
    second = psutil.Process(int((workspace_dir / "second.pid").read_text()))
    try:
        starter.kill()

        assert _wait_for(lambda: _gone(starter.sleep), GONE_WITHIN)
        assert _wait_for(lambda: _gone(second), GONE_WITHIN)
    finally:
        if not _gone(second):
            second.kill()
