"""Goal statuses in the log: the objective written once, every reader given a full status."""

from __future__ import annotations

from openhands.sdk.conversation import InMemoryEventLog
from openhands.sdk.conversation.goal import (
    GoalLimits,
    GoalStatus,
    GoalStatusWriter,
    goal_status_from,
    last_goal_status,
)
from openhands.sdk.event import ConversationStateUpdateEvent, Event

OBJECTIVE = "Ship the release. " * 1_000


def _status(iteration: int, objective: str = OBJECTIVE) -> GoalStatus:
    return GoalStatus(
        active=True,
        status="running",
        iteration=iteration,
        limits=GoalLimits(max_iterations=5),
        objective=objective,
    )


def _goal_events(log: InMemoryEventLog) -> list[ConversationStateUpdateEvent]:
    return [e for e in log if isinstance(e, ConversationStateUpdateEvent)]


def _record(writer: GoalStatusWriter, log: InMemoryEventLog, status: GoalStatus) -> None:
    event = writer.event(status)
    log.append(event)
    writer.written(event)


def test_only_the_first_written_status_holds_the_objective() -> None:
    writer, log = GoalStatusWriter(), InMemoryEventLog()
    for iteration in range(3):
        _record(writer, log, _status(iteration))
    first, *later = _goal_events(log)
    assert first.value["objective"] == OBJECTIVE
    assert all("objective" not in event.value for event in later)
    assert {event.value["objective_ref"] for event in later} == {first.id}


def test_a_status_whose_write_failed_does_not_become_the_reference() -> None:
    writer = GoalStatusWriter()
    lost = writer.event(_status(0))  # never appended (the disk refused it)
    again = writer.event(_status(0))
    assert "objective" in again.value and again.id != lost.id


def test_last_goal_status_puts_the_objective_back() -> None:
    writer, log = GoalStatusWriter(), InMemoryEventLog()
    for iteration in range(3):
        _record(writer, log, _status(iteration))
    status = last_goal_status(log)
    assert status is not None and (status.iteration, status.objective) == (2, OBJECTIVE)


def test_a_plain_list_of_events_is_searched_for_the_objective() -> None:
    writer, log = GoalStatusWriter(), InMemoryEventLog()
    for iteration in range(2):
        _record(writer, log, _status(iteration))
    events: list[Event] = list(log)
    status = last_goal_status(events)
    assert status is not None and status.objective == OBJECTIVE


def test_a_new_objective_is_written_in_full_again() -> None:
    writer, log = GoalStatusWriter(), InMemoryEventLog()
    _record(writer, log, _status(0))
    _record(writer, log, _status(0, objective="Another goal"))
    assert _goal_events(log)[1].value["objective"] == "Another goal"
    status = last_goal_status(log)
    assert status is not None and status.objective == "Another goal"


def test_an_adopting_writer_refers_to_the_objective_already_in_the_log() -> None:
    first, log = GoalStatusWriter(), InMemoryEventLog()
    _record(first, log, _status(0))
    _record(first, log, _status(1))
    resumed = GoalStatusWriter()
    started, newest = _goal_events(log)
    resumed.adopt(newest, OBJECTIVE)
    event = resumed.event(_status(1))
    assert event.value["objective_ref"] == started.id
    log.append(event)
    assert goal_status_from(event, log).objective == OBJECTIVE
