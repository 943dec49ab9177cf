"""The remote client: `RemoteConversation` drives a conversation on an agent server."""

from openhands.sdk.conversation.remote.conversation import RemoteConversation
from openhands.sdk.conversation.remote.errors import (
    RemoteAuthenticationError,
    RemoteConnectionError,
    RemoteConversationError,
    RemoteConversationNotFoundError,
    RemoteRequestError,
    RemoteServerError,
)
from openhands.sdk.conversation.remote.events import RemoteEventCache
from openhands.sdk.conversation.remote.state import RemoteState

__all__ = [
    "RemoteAuthenticationError",
    "RemoteConnectionError",
    "RemoteConversation",
    "RemoteConversationError",
    "RemoteConversationNotFoundError",
    "RemoteEventCache",
    "RemoteRequestError",
    "RemoteServerError",
    "RemoteState",
]
