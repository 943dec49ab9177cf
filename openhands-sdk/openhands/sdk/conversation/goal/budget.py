"""Time and budget bookkeeping of a goal: seconds worked, and which budget paused a run.

Both are small pieces of `GoalController` state with their own rules: time counts only while
a driver works on the goal (across resumes), and a budget "trips" at most once per round, from
whichever thread notices it first (the agent's callback, a timer).
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class WorkClock:
    """Seconds worked on a goal across driver sessions; time while it is stopped is free.

    `clock` is any monotonic source of seconds (a workflow passes its own deterministic one).
    """

    def __init__(self, clock: Callable[[], float], elapsed_before: float = 0.0) -> None:
        self._clock = clock
        self._before = elapsed_before
        self._session_start = clock()
        self._running = True

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


class BudgetTrip:
    """Which budget made the driver pause the current run, if one did (thread-safe)."""

    def __init__(self) -> None:
        self._reason: str | None = None
        self._lock = threading.Lock()

    @property
    def reason(self) -> str | None:
        """The budget that tripped in this round ("cost budget", "time limit"), or None."""
        return self._reason

    def trip(self, reason: str) -> str | None:
        """Record `reason` if nothing tripped yet this round; return it then, else None."""
        with self._lock:
            if self._reason is not None:
                return None
            self._reason = reason
            return reason

    def reset(self) -> None:
        """A new round starts: no budget has tripped in it."""
        with self._lock:
            self._reason = None
