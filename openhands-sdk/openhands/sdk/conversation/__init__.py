"""Conversations: local or remote, their state, persistence and errors."""

from openhands.sdk.conversation.base import BaseConversation
from openhands.sdk.conversation.config import ConversationConfig
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.errors import (
    ConversationAlreadyRunningError,
    ConversationClosedError,
    ConversationError,
    ConversationRunError,
    ConversationStateError,
    UnknownEventError,
    UserPromptBlockedError,
)
from openhands.sdk.conversation.event_log import EventLog, FileEventLog, InMemoryEventLog
from openhands.sdk.conversation.factory import Conversation
from openhands.sdk.conversation.local import LocalConversation
from openhands.sdk.conversation.persistence import (
    ConversationSummary,
    list_conversation_ids,
    load_conversation_summary,
    remove_unfinished,
)
from openhands.sdk.conversation.secret_registry import SecretRegistry
from openhands.sdk.conversation.state import ConversationExecutionStatus, ConversationState
from openhands.sdk.conversation.stuck import StuckDetector
from openhands.sdk.conversation.types import (
    ConversationCallbackType,
    ConversationID,
    ConversationTags,
    ConversationTokenCallbackType,
    StuckDetectionThresholds,
)
from openhands.sdk.conversation.visualizer import ConversationVisualizerBase

__all__ = [
    "BaseConversation",
    "Conversation",
    "ConversationAlreadyRunningError",
    "ConversationCallbackType",
    "ConversationClosedError",
    "ConversationConfig",
    "ConversationError",
    "ConversationExecutionStatus",
    "ConversationID",
    "ConversationRunError",
    "ConversationState",
    "ConversationStateError",
    "ConversationStats",
    "ConversationSummary",
    "ConversationTags",
    "ConversationTokenCallbackType",
    "ConversationVisualizerBase",
    "EventLog",
    "FileEventLog",
    "InMemoryEventLog",
    "LocalConversation",
    "SecretRegistry",
    "StuckDetectionThresholds",
    "StuckDetector",
    "UnknownEventError",
    "UserPromptBlockedError",
    "list_conversation_ids",
    "load_conversation_summary",
    "remove_unfinished",
]
