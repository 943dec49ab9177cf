"""Conversations: local or remote, their state, persistence and errors."""

from openhands.sdk.conversation.base import BaseConversation
from openhands.sdk.conversation.conversation_stats import ConversationStats
from openhands.sdk.conversation.errors import (
    ConversationAlreadyRunningError,
    ConversationClosedError,
    ConversationError,
    ConversationRunError,
    ConversationStateError,
    UserPromptBlockedError,
)
from openhands.sdk.conversation.event_log import EventLog, FileEventLog, InMemoryEventLog
from openhands.sdk.conversation.factory import Conversation
from openhands.sdk.conversation.local import LocalConversation
from openhands.sdk.conversation.persistence import (
    ConversationSummary,
    list_conversation_ids,
    load_conversation_summary,
)
from openhands.sdk.conversation.state import ConversationExecutionStatus, ConversationState

__all__ = [
    "BaseConversation",
    "Conversation",
    "ConversationAlreadyRunningError",
    "ConversationClosedError",
    "ConversationError",
    "ConversationExecutionStatus",
    "ConversationRunError",
    "ConversationState",
    "ConversationStateError",
    "ConversationStats",
    "ConversationSummary",
    "EventLog",
    "FileEventLog",
    "InMemoryEventLog",
    "LocalConversation",
    "UserPromptBlockedError",
    "list_conversation_ids",
    "load_conversation_summary",
]
