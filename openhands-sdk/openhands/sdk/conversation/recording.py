"""`Recorder`: how a `LocalConversation` writes what happens to it into its log.

Events, status changes, LLM usage and configuration changes all go through here, with one
rule for each about a refusing disk: an event must be stored (the caller sees the failure);
a status right after an acknowledged event may stay in memory (`best_effort`); a
configuration change is retried at the next save. The conversation owns one `Recorder`.
"""

from __future__ import annotations

import logging

from openhands.sdk.conversation.publisher import EventPublisher
from openhands.sdk.conversation.snapshot import STATS_KEY, STATUS_KEY
from openhands.sdk.conversation.state import ConversationExecutionStatus, ConversationState
from openhands.sdk.errors import StorageError
from openhands.sdk.event.base import Event
from openhands.sdk.event.state import ConversationErrorEvent, ConversationStateUpdateEvent

__all__ = ["RUN_LOST", "Recorder"]

logger = logging.getLogger(__name__)

Status = ConversationExecutionStatus

RUN_LOST = "RunLost"
"""The error code recorded when a conversation is reopened that its dead process left running."""


class Recorder:
    """Appends a conversation's events through its publisher, and its status and usage."""

    def __init__(self, state: ConversationState, publisher: EventPublisher) -> None:
        self._state = state
        self._lock = state.lock
        self._publisher = publisher
        self._stats_recorded = state.stats.fingerprint()  # what the log's last stats say

    def emit(self, event: Event) -> Event:
        """Persist `event`, then publish it to the callbacks (see EventPublisher)."""
        return self._publisher.emit(event)

    def set_status(self, status: Status, *, best_effort: bool = False) -> None:
        """Append the status change (the state applies it once it is on disk).

        With `best_effort`, a refusing disk only logs a warning and the status changes in
        memory: used right after an event that was already acknowledged, so the caller does
        not see a failure for something that was stored.
        """
        with self._lock:
            if self._state.execution_status == status:
                return
            try:
                self.emit(ConversationStateUpdateEvent(key=STATUS_KEY, value=status.value))
            except StorageError as exc:
                if not best_effort:
                    raise
                self._state.execution_status = status
                logger.warning(
                    "conversation %s: status %s not recorded: %s", self._state.id, status, exc
                )

    def record_stats(self) -> None:
        """Append the LLM usage as a `stats` update if it changed since the last one."""
        with self._lock:
            stats = self._state.stats
            fingerprint = stats.fingerprint()
            if fingerprint != self._stats_recorded:
                self.emit(
                    ConversationStateUpdateEvent(key=STATS_KEY, value=stats.model_dump(mode="json"))
                )
                self._stats_recorded = fingerprint

    def record_interruption(self) -> None:
        """The process running this conversation died mid-run: say so, and leave `running`."""
        self.emit(
            ConversationErrorEvent(
                code=RUN_LOST,
                detail="The process running this conversation stopped in the middle of a run "
                "(it crashed or was killed), so the last step may be incomplete. Send a "
                "message or run it again to continue.",
            )
        )
        self.set_status(Status.ERROR)

    def save_config(self) -> None:
        """Save a configuration change; a refusing disk only delays it (it is retried later)."""
        try:
            self._state.save_config()
        except StorageError as exc:
            logger.warning("conversation %s: configuration not saved yet: %s", self._state.id, exc)
