"""Glue between a conversation and a view: statuses and events in, view calls out."""

from __future__ import annotations

import threading
from pathlib import Path

from openhands.sdk.conversation.checkpointing import CHECKPOINT_KEY, REWIND_KEY
from openhands.sdk.conversation.goal import GoalStatus, goal_status_from
from openhands.sdk.conversation.goal.status import is_goal_event
from openhands.sdk.event import ConversationStateUpdateEvent, Event
from openhands.sdk.workspace.checkpoints import Checkpoint, RewindResult
from openhands.tools.cli.changes import checkpoint_line, rewind_line
from openhands.tools.cli.describe import describe_event, describe_result, describe_step
from openhands.tools.cli.views import GoalView


class StatusTracker:
    """Hands every status to the view and keeps the latest one (the goal's end, at the end).

    Use it as `run_goal(..., on_status=tracker)`.
    """

    def __init__(self, view: GoalView) -> None:
        """Forward to `view`."""
        self._view = view
        self._lock = threading.Lock()
        self.latest: GoalStatus | None = None

    def __call__(self, status: GoalStatus) -> None:
        with self._lock:
            self.latest = status
        self._view.status(status)


class EventFeed:
    """A conversation callback: the agent's actions go to the view as its activity and, with
    their results, as scrollback lines; each workspace snapshot a goal round ends with as a line of what it changed.

    With `goal_events=True` (a conversation on a server, whose goal loop runs there) the goal
    status events become statuses too; `objective` fills in the objective that compact
    status events leave out.
    """

    def __init__(
        self, tracker: StatusTracker, view: GoalView, workdir: Path, *, goal_events: bool
    ) -> None:
        """Feed `view` (activities) and `tracker` (statuses) from a conversation's events."""
        self._tracker = tracker
        self._view = view
        self._workdir = workdir
        self._goal_events = goal_events
        self.objective = ""

    def __call__(self, event: Event) -> None:
        if isinstance(event, ConversationStateUpdateEvent) and event.key == CHECKPOINT_KEY:
            line = checkpoint_line(Checkpoint.model_validate(event.value))
            if line is not None:
                self._view.changes(line)
            return
        if isinstance(event, ConversationStateUpdateEvent) and event.key == REWIND_KEY:
            self._view.changes(rewind_line(RewindResult.model_validate(event.value)))
            return
        if is_goal_event(event):
            if self._goal_events and isinstance(event, ConversationStateUpdateEvent):
                self._tracker(goal_status_from(event, objective=self.objective))
            return
        step = describe_step(event, self._workdir)
        if step is not None:
            self._view.step(step)
        result = describe_result(event)
        if result is not None:
            self._view.result(result)
        text = describe_event(event, self._workdir)
        if text is not None:
            self._view.activity(text)


__all__ = ["EventFeed", "StatusTracker"]
