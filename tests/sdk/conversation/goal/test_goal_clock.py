"""WorkClock and RunWatch: time worked across sessions, and the limits a driver watches."""

from __future__ import annotations

import threading

from openhands.sdk.conversation.goal import RunAgent, RunWatch
from openhands.sdk.conversation.goal.clock import WorkClock


class Clock:
    """A settable clock."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_time_while_stopped_is_free_and_carries_across_sessions() -> None:
    clock = Clock()
    work = WorkClock(clock, elapsed_before=5.0)
    clock.now = 3.0
    work.stop()
    clock.now = 100.0
    assert work.elapsed == 8.0
    work.restart()
    clock.now = 102.0
    assert work.elapsed == 10.0


def test_a_clock_made_stopped_counts_nothing_until_restarted() -> None:
    clock = Clock()
    work = WorkClock(clock, elapsed_before=2.0, running=False)
    clock.now = 50.0
    assert work.elapsed == 2.0
    work.restart()
    clock.now = 51.0
    assert work.elapsed == 3.0


def test_the_watch_reports_the_cost_limit_once_spending_reaches_it() -> None:
    watch = RunWatch(RunAgent(message=None, cost_left=0.5))
    assert watch.watching
    assert watch.spent(0.49) is None
    assert watch.spent(0.5) == "cost budget"
    assert watch.spent(0.9) is None  # reported once
    assert watch.reached == "cost budget"


def test_a_run_without_limits_is_not_watched() -> None:
    watch = RunWatch(RunAgent(message="go"))
    assert not watch.watching
    assert watch.spent(100.0) is None and watch.time_up() is None and watch.reached is None


def test_only_the_first_of_many_threads_reaches_a_limit() -> None:
    watch = RunWatch(RunAgent(time_left=1.0, cost_left=1.0))
    results: list[str | None] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def race(index: int) -> None:
        start.wait()
        got = watch.spent(2.0) if index % 2 else watch.time_up()
        with lock:
            results.append(got)

    threads = [threading.Thread(target=race, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    reached = [r for r in results if r is not None]
    assert len(reached) == 1 and watch.reached == reached[0]
