"""The events the LLM sees, under the reference SDK's module names (`llm_convertible.action`,
`.message`, `.observation`, `.system`); the classes live in `openhands.sdk.event`."""

from openhands.sdk.event.llm_convertible.action import ActionEvent
from openhands.sdk.event.llm_convertible.message import MessageEvent
from openhands.sdk.event.llm_convertible.observation import (
    AgentErrorEvent,
    ObservationEvent,
    UserRejectObservation,
)
from openhands.sdk.event.llm_convertible.system import SystemPromptEvent

__all__ = [
    "ActionEvent",
    "AgentErrorEvent",
    "MessageEvent",
    "ObservationEvent",
    "SystemPromptEvent",
    "UserRejectObservation",
]
