"""`ConversationCore`: what a `LocalConversation`'s collaborators need from it.

A `LocalConversation` owns one object per concern: the runs (`RunLoop`), approvals
(`Approvals`), fork and HEAD moves (`Branching`), checkpoints (`Checkpointing`), client tool
calls (`ClientCalls`) and model switching (`LLMSwitching`). Each is handed this small view of
the conversation instead of reaching into its fields: the state (whose `lock` is the
conversation's lock), the tools, whether a run is going or the conversation is closed, and
the ways of writing to the log (events, status, usage, configuration). Anything a
collaborator keeps (a flag, a cache, a setting) it owns alone; what another part must know,
it asks through a method. The Protocol lives beside the conversation, not in `contracts`:
it names `ConversationState`, a layer above `contracts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from openhands.sdk.conversation.errors import ConversationClosedError

if TYPE_CHECKING:
    from openhands.sdk.conversation.state import ConversationExecutionStatus, ConversationState
    from openhands.sdk.event.base import Event
    from openhands.sdk.tool.tool import ToolDefinition

__all__ = ["ConversationCore", "require_open"]


class ConversationCore(Protocol):
    """The host of a conversation's collaborators, as they see it."""

    @property
    def state(self) -> ConversationState:
        """The conversation's state (`state.lock` guards it and the log)."""
        ...

    @property
    def tools(self) -> Mapping[str, ToolDefinition]:
        """The conversation's tools by name."""
        ...

    @property
    def is_running(self) -> bool:
        """True while a run holds the run lock."""
        ...

    @property
    def is_closed(self) -> bool:
        """True once the conversation was closed."""
        ...

    def emit(self, event: Event) -> Event:
        """Persist `event`, then publish it (`Recorder.emit`); returns the stored copy."""
        ...

    def set_status(self, status: ConversationExecutionStatus, *, best_effort: bool = False) -> None:
        """Record a status change (`Recorder.set_status`)."""
        ...

    def record_stats(self) -> None:
        """Record the LLM usage if it changed since it was last recorded."""
        ...

    def save_config(self) -> None:
        """Save a configuration change; a refusing disk only delays it."""
        ...


def require_open(core: ConversationCore) -> None:
    """Raise `ConversationClosedError` (saying how to reopen) once `core` is closed."""
    if core.is_closed:
        raise ConversationClosedError(
            f"Conversation {core.state.id} is closed; reopen it with the same conversation_id "
            "and persistence_dir to continue."
        )
