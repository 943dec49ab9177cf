"""Conversation events. Every event serializes to JSON with a `kind` discriminator."""

from openhands.sdk.event.action import (
    ActionEvent,
    AgentErrorEvent,
    ObservationEvent,
    UserRejectObservation,
)
from openhands.sdk.event.base import Event, EventSource, LLMConvertibleEvent, UnknownEventKindError
from openhands.sdk.event.condenser import Condensation
from openhands.sdk.event.hook_execution import HookExecutionEvent
from openhands.sdk.event.message import MessageEvent, SystemPromptEvent
from openhands.sdk.event.state import (
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    InterruptEvent,
    PauseEvent,
)
from openhands.sdk.event.to_messages import events_to_messages

__all__ = [
    "ActionEvent",
    "AgentErrorEvent",
    "Condensation",
    "ConversationErrorEvent",
    "ConversationStateUpdateEvent",
    "Event",
    "EventSource",
    "HookExecutionEvent",
    "InterruptEvent",
    "LLMConvertibleEvent",
    "MessageEvent",
    "ObservationEvent",
    "PauseEvent",
    "SystemPromptEvent",
    "UnknownEventKindError",
    "UserRejectObservation",
    "events_to_messages",
]
