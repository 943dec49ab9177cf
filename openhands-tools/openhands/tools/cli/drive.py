"""Ctrl-C for `openhands-goal`: the goal works in a thread, the main thread only takes signals.

The first Ctrl-C (SIGINT, or SIGTERM) asks the goal to stop cleanly; the second quits at
once with exit code 2. Signals are taken by a handler that only sets a flag (or, the second
time, exits): raising KeyboardInterrupt into the main thread could cut a stop request in half
or leave `Thread.join` believing a running thread had ended.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

from openhands.tools.cli.options import EXIT_STOPPED
from openhands.tools.cli.views import GoalView

POLL_SECONDS = 0.2
"""How often the main thread looks at the flags while the goal runs."""

STOPPING = "Stopping: the agent stops after its current step (press Ctrl-C again to quit at once)."
QUITTING = b"openhands-goal: quitting now; the goal stays resumable (--resume)\n"


def drive(
    work: Callable[[], object],
    stop: Callable[[], None],
    view: GoalView,
    *,
    repeat_stop: bool = False,
    on_poll: Callable[[threading.Event], None] | None = None,
) -> None:
    """Run `work` in a worker thread until it returns; re-raise what it raised.

    The first Ctrl-C calls `stop` (from the main thread); with `repeat_stop` it is called
    again at every poll until `work` returns, for a stop that a starting agent run would
    otherwise drop. The second Ctrl-C exits the process (code 2) without waiting.
    `on_poll(pressed)` runs in the main thread at every poll before the first Ctrl-C (e.g. to
    ask the person about a tool call); it may set `pressed` to stop the goal.
    """
    failure: list[BaseException] = []
    done = threading.Event()
    pressed = threading.Event()

    def target() -> None:
        try:
            work()
        except BaseException as exc:  # handed to the main thread, which re-raises it
            failure.append(exc)
        finally:
            done.set()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if pressed.is_set():
            # Only async-signal-safe calls here: the main thread may hold a view's lock.
            os.write(2, QUITTING)
            os._exit(EXIT_STOPPED)  # the worker may be inside a tool call: don't wait
        pressed.set()

    previous = _install(on_signal)
    try:
        threading.Thread(target=target, name="openhands-goal", daemon=True).start()
        stopped = False
        while not done.wait(POLL_SECONDS):
            if not pressed.is_set() and on_poll is not None:
                on_poll(pressed)
            if not pressed.is_set():
                continue
            if not stopped:
                stopped = True
                view.notice(STOPPING)
                stop()
            elif repeat_stop:
                stop()
    finally:
        for signum, handler in previous.items():
            if handler is not None:  # None: set outside Python, cannot be put back
                signal.signal(signum, handler)
    if failure:
        raise failure[0]


def _install(handler: Callable[[int, FrameType | None], None]) -> dict[int, Any]:
    """Take SIGINT and SIGTERM with `handler` (only the main thread may); the old handlers."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {signum: signal.signal(signum, handler) for signum in (signal.SIGINT, signal.SIGTERM)}


__all__ = ["POLL_SECONDS", "drive"]
