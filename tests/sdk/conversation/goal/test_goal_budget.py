"""WorkClock and BudgetTrip: time worked across sessions, one budget trip per round."""

from __future__ import annotations

import threading

from openhands.sdk.conversation.goal.budget import BudgetTrip, WorkClock


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


def test_only_the_first_of_many_threads_trips_the_budget() -> None:
    trip = BudgetTrip()
    results: list[str | None] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def race(reason: str) -> None:
        start.wait()
        got = trip.trip(reason)
        with lock:
            results.append(got)

    threads = [
        threading.Thread(target=race, args=("cost budget" if i % 2 else "time limit",))
        for i in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    tripped = [r for r in results if r is not None]
    assert len(tripped) == 1 and trip.reason == tripped[0]
    trip.reset()
    assert trip.reason is None and trip.trip("time limit") == "time limit"
