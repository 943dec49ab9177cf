"""`CoreForTests`: a `ConversationCore` without a `LocalConversation`, to test its collaborators
alone (the `make_core` fixture in conftest.py builds one)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from openhands.sdk.conversation.publisher import EventPublisher
from openhands.sdk.conversation.recording import Recorder
from openhands.sdk.conversation.state import ConversationExecutionStatus, ConversationState
from openhands.sdk.event.base import Event
from openhands.sdk.tool.tool import ToolDefinition


class CoreForTests:
    """A real state, log and tools, with the run and close flags in the test's hands.

    Satisfies `ConversationCore` (pyright checks it wherever a collaborator is given one).
    """

    def __init__(self, state: ConversationState, tools: Mapping[str, ToolDefinition]) -> None:
        self.state = state
        self.tools = dict(tools)
        self.is_running = False
        self.is_closed = False
        self.configs_saved = 0
        self.recorder = Recorder(state, EventPublisher(state))

    def emit(self, event: Event) -> Event:
        return self.recorder.emit(event)

    def set_status(self, status: ConversationExecutionStatus, *, best_effort: bool = False) -> None:
        self.recorder.set_status(status, best_effort=best_effort)

    def record_stats(self) -> None:
        self.recorder.record_stats()

    def save_config(self) -> None:
        self.configs_saved += 1
        self.recorder.save_config()


MakeCore = Callable[..., CoreForTests]
"""The `make_core` fixture: `make_core(tools=("echo",), persist=False)`."""
