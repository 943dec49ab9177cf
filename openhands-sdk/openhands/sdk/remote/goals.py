"""The goal API of a `RemoteConversation`: start, stop, resume, status and wait."""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

from openhands.sdk.conversation.goal.errors import NoGoalStartedError
from openhands.sdk.conversation.state import ConversationExecutionStatus
from openhands.sdk.event.state import ConversationStateUpdateEvent
from openhands.sdk.remote.client import GoalStatusRouteMissing, RemoteClient
from openhands.sdk.remote.events import RemoteEventCache

if TYPE_CHECKING:
    from openhands.sdk.conversation.goal import GoalRequest, GoalStatus

RECHECK_INTERVAL = 5.0
"""Seconds between REST re-reads while waiting, in case a goal event is late or missed."""


class RemoteGoals:
    """Calls the server's goal routes for one conversation and waits on its goal events."""

    def __init__(
        self, client: RemoteClient, conversation_id: uuid.UUID, events: RemoteEventCache
    ) -> None:
        """Bind to one conversation and its mirrored events."""
        self._client = client
        self._id = conversation_id
        self._events = events
        self._started = False

    def start(self, request: GoalRequest) -> None:
        """POST /{id}/goal with a validated `GoalRequest`."""
        self._client.start_goal(self._id, request)
        self._started = True

    def status(self) -> GoalStatus | None:
        """GET /{id}/goal as a `GoalStatus`, or None when no goal ever ran.

        A server without that route (the reference's) publishes the same status as
        `key="goal"` events: the newest mirrored one is the answer.
        """
        try:
            return self._client.goal_status(self._id)
        except GoalStatusRouteMissing:
            from openhands.sdk.conversation.goal import last_goal_status

            return last_goal_status(self._events.read())

    def action(self, name: str, body: dict[str, Any] | None = None) -> None:
        """POST /{id}/goal/stop or /{id}/goal/resume (with its optional body)."""
        self._client.goal_action(self._id, name, body)

    def wait(self, timeout: float | None) -> GoalStatus:
        """Block until the goal is inactive and the agent has stopped; return the goal status.

        Woken by goal and execution-status events, confirmed over REST. After a stop the
        goal is `interrupted` at once but the agent finishes its current step first; waiting
        for that too means `resume_goal()` (or `run()`) can follow without a 409.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            position = len(self._events)
            status = self.status()
            if status is None and not self._started:
                raise NoGoalStartedError(
                    f"No goal was started on conversation {self._id}; call start_goal() first."
                )
            # None after our own start: a server that answers POST /goal before its first
            # status event (the reference's) has not published it yet.
            if status is not None and not status.active and not self._agent_running():
                return status
            while True:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    where = (
                        "has published no status"
                        if status is None
                        else f"is still {status.status} (iteration {status.iteration}/"
                        f"{status.max_iterations})"
                    )
                    raise TimeoutError(
                        f"The goal on conversation {self._id} {where} after {timeout} s."
                    )
                wait = RECHECK_INTERVAL if remaining is None else min(remaining, RECHECK_INTERVAL)
                if not self._events.wait_for_length(position, timeout=wait):
                    break  # nothing new for a while: re-read over REST
                new = self._events.read(position)
                position += len(new)
                if any(_may_end_the_wait(event) for event in new):
                    break

    def _agent_running(self) -> bool:
        info = self._client.get_conversation(self._id)
        return info.execution_status == ConversationExecutionStatus.RUNNING


def _may_end_the_wait(event: Any) -> bool:
    """A goal update that says inactive, or the agent's run reaching a non-running status."""
    if not isinstance(event, ConversationStateUpdateEvent):
        return False
    from openhands.sdk.conversation.goal import GOAL_STATE_KEY

    if event.key == "execution_status":
        return event.value != "running"
    value = event.value
    return event.key == GOAL_STATE_KEY and isinstance(value, dict) and value.get("active") is False
