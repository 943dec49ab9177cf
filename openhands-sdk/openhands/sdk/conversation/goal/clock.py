"""Time bookkeeping of a goal: the seconds worked on it, across drivers and resumes.

Time counts only while a driver works on the goal; time while it is stopped is free. A
workflow passes its own deterministic clock, so a replay reads the same times.
"""

from __future__ import annotations

from collections.abc import Callable


class WorkClock:
    """Seconds worked on a goal across driver sessions; time while it is stopped is free.

    `clock` is any monotonic source of seconds; `elapsed_before` is what earlier sessions
    worked; `running` says whether a session is under way now.
    """

    def __init__(
        self, clock: Callable[[], float], elapsed_before: float = 0.0, *, running: bool = True
    ) -> None:
        self._clock = clock
        self._before = elapsed_before
        self._session_start = clock()
        self._running = running

    @property
    def elapsed(self) -> float:
        """Seconds worked so far, the current session included."""
        if not self._running:
            return self._before
        return self._before + max(0.0, self._clock() - self._session_start)

    def restart(self) -> None:
        """A driver works on the goal again: start a new session if the clock was stopped."""
        if not self._running:
            self._session_start = self._clock()
            self._running = True

    def stop(self) -> None:
        """The driver stopped working on the goal: freeze the elapsed time."""
        self._before = self.elapsed
        self._running = False
