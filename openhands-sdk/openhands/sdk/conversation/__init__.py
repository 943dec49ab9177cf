"""Conversations: local or remote, their state, persistence and errors.

`Conversation(...)` (local or remote) and `RemoteConversation` live in `openhands.sdk.remote`,
above this package; they are handed on here on first read (the reference SDK's paths), so
loading this package never loads them.
"""

from openhands.sdk.conversation.base import BaseConversation
from openhands.sdk.conversation.config import ConversationConfig
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.errors import (
    CondenserUnavailableError,
    ConversationAlreadyRunningError,
    ConversationClosedError,
    ConversationError,
    ConversationRunError,
    ConversationStateError,
    UnknownEventError,
    UserPromptBlockedError,
)
from openhands.sdk.conversation.event_log import EventLog, FileEventLog, InMemoryEventLog
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
from openhands.sdk.utils.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Conversation": "openhands.sdk.remote.factory",
        "RemoteConversation": "openhands.sdk.remote.conversation",
    },
)

__all__ = [
    "BaseConversation",
    "CondenserUnavailableError",
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
