"""Goal statuses in the event log: written compactly, read back whole.

Every lifecycle point of a goal appends `ConversationStateUpdateEvent(key="goal")` whose value
is a `GoalStatus`. The objective can be large (a whole specification), so it is written once
per driver: the first status a `GoalStatusWriter` records carries it, later ones carry
`objective_ref`, the id of that event, instead. `goal_status_from(event, events)` and
`last_goal_status(events)` put the objective back, so every reader gets a full `GoalStatus`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from openhands.sdk.contracts import EventHistory
from openhands.sdk.conversation.checkpointing import REWIND_KEY
from openhands.sdk.conversation.goal.models import SERVER_RESTART, GoalStatus
from openhands.sdk.conversation.persistence import GOAL_STATE_KEY
from openhands.sdk.event.base import Event
from openhands.sdk.event.state import ConversationStateUpdateEvent

GOAL_SENDER = "goal"
"""The `sender` of the user messages a goal driver sends (the objective, follow-ups, resume
prompts), so a UI labels them as the goal loop's, not the person's."""

OBJECTIVE_REF = "objective_ref"
"""The field of a compact goal status naming the event that holds its objective."""

_SCAN_CHUNK = 256

Events = EventHistory | Sequence[Event]


class GoalStatusWriter:
    """Turns one driver's statuses into goal events, writing the objective only once.

    Call `event(status)`, append the event, then `written(event)`: until an event holding the
    objective is confirmed written, every event holds it, so a failed first write never
    leaves later statuses pointing at an event that is not in the log.
    """

    def __init__(self) -> None:
        self._ref: str | None = None
        self._objective: str | None = None

    def event(self, status: GoalStatus) -> ConversationStateUpdateEvent:
        """The goal event recording `status` (compact once the objective is in the log)."""
        if self._ref is not None and status.objective == self._objective:
            value = status.model_dump(mode="json", exclude={"objective"})
            value[OBJECTIVE_REF] = self._ref
        else:
            value = status.model_dump(mode="json")
        return ConversationStateUpdateEvent(key=GOAL_STATE_KEY, value=value)

    def adopt(self, event: ConversationStateUpdateEvent, objective: str) -> None:
        """Continue after `event`, a goal event already in the log whose objective is given.

        A resumed goal (or a restart's record of it) then refers to the objective written
        when the goal started instead of writing it again.
        """
        value = event.value if isinstance(event.value, dict) else {}
        ref = value.get(OBJECTIVE_REF) if "objective" not in value else event.id
        if isinstance(ref, str):
            self._ref, self._objective = ref, objective

    def written(self, event: ConversationStateUpdateEvent) -> None:
        """Note that `event` is in the log: later statuses may refer to its objective."""
        value = event.value
        if self._ref is None and isinstance(value, dict) and "objective" in value:
            self._ref = event.id
            self._objective = value["objective"]


def left_running(status: Mapping[str, Any] | None) -> bool:
    """Whether a recorded goal status (a status event's value) says a driver was working on it."""
    return status is not None and bool(status.get("active") or status.get("status") == "running")


def stopped_status(status: GoalStatus, reason: str) -> GoalStatus:
    """`status` ended `interrupted` for `reason` by someone other than its driver (its driver
    is gone); the rounds, costs and verdict stay as last recorded."""
    update = {"active": False, "status": "interrupted", "reason": reason, "phase": None}
    return status.model_copy(update=update)


def interrupted_by_restart(status: GoalStatus) -> GoalStatus | None:
    """The status recording that the goal's driver died with its process, or None if the goal
    was not running. No driver survives its process: a goal found `running` (a server
    restarted, a script was killed) is `interrupted` (reason "server restart") and resumable."""
    if not left_running(status.model_dump(include={"active", "status"})):
        return None
    return stopped_status(status, SERVER_RESTART)


def is_goal_event(event: Event) -> bool:
    """True for the state-update events that carry a goal status."""
    return isinstance(event, ConversationStateUpdateEvent) and event.key == GOAL_STATE_KEY


def goal_status_from(
    event: ConversationStateUpdateEvent, events: Events | None = None, *, objective: str = ""
) -> GoalStatus:
    """The full status a goal event records (its objective looked up in `events` if needed).

    `objective` is used when the event refers to an objective that `events` cannot provide.
    """
    value: dict[str, Any] = dict(event.value) if isinstance(event.value, dict) else {}
    if "objective" not in value:
        found = _objective(events, value.get(OBJECTIVE_REF)) if events is not None else None
        value["objective"] = found if found is not None else objective
    return GoalStatus.model_validate(value)


def last_goal_event(events: Events) -> ConversationStateUpdateEvent | None:
    """The newest goal event of an event history, or None."""
    for event in _newest_first(events, len(events)):
        if isinstance(event, ConversationStateUpdateEvent) and event.key == GOAL_STATE_KEY:
            return event
    return None


def rewound_since_goal(events: Events) -> str | None:
    """The label of the snapshot the workspace was rewound to since the goal's newest status
    (the latest such rewind), or None: a resumed goal's agent must be told its files went back."""
    for event in _newest_first(events, len(events)):
        if not isinstance(event, ConversationStateUpdateEvent):
            continue
        if event.key == GOAL_STATE_KEY:
            return None
        if event.key == REWIND_KEY and isinstance(event.value, dict):
            label = event.value.get("label")
            return label if isinstance(label, str) else "an earlier snapshot"
    return None


def last_goal_status(events: Events) -> GoalStatus | None:
    """The newest `GoalStatus` recorded in an event history (with its objective), or None."""
    event = last_goal_event(events)
    return None if event is None else goal_status_from(event, events)


def _objective(events: Events, ref: Any) -> str | None:
    """The objective in the event `ref` names; else in the newest goal event holding one."""
    if isinstance(ref, str) and isinstance(events, EventHistory):
        found = _objective_of(events.get(ref))
        if found is not None:
            return found
    # No index to look it up by (a plain list), or the log lost it: search backwards.
    for event in _newest_first(events, len(events)):
        found = _objective_of(event)
        if found is not None:
            return found
    return None


def _objective_of(event: Event | None) -> str | None:
    if not isinstance(event, ConversationStateUpdateEvent) or event.key != GOAL_STATE_KEY:
        return None
    value = event.value
    objective = value.get("objective") if isinstance(value, dict) else None
    return objective if isinstance(objective, str) else None


def _newest_first(events: Events, stop: int) -> Iterator[Event]:
    """Events of `events` before index `stop`, newest first, read in chunks."""
    while stop > 0:
        start = max(0, stop - _SCAN_CHUNK)
        chunk = (
            events.read(start, stop)
            if isinstance(events, EventHistory)
            else list(events[start:stop])
        )
        yield from reversed(chunk)
        stop = start
