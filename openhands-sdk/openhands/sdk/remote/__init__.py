"""Driving an agent server: `RemoteWorkspace`, `RemoteConversation`, and the factories that
choose between local and remote (`Conversation(...)`, `Workspace(...)`).

The unit stands on top of the SDK: it speaks the server's JSON (`openhands.sdk.wire`) and
offers the conversation API of `openhands.sdk.conversation` over REST and a WebSocket. The
conversation loads on first use (it brings the HTTP and WebSocket clients).
"""

from typing import TYPE_CHECKING

from openhands.sdk.remote.errors import (
    RemoteAuthenticationError,
    RemoteConflictError,
    RemoteConnectionError,
    RemoteConversationError,
    RemoteConversationNotFoundError,
    RemoteRequestError,
    RemoteServerError,
)
from openhands.sdk.remote.factory import Conversation, Workspace
from openhands.sdk.remote.workspace import RemoteWorkspace
from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from openhands.sdk.remote.conversation import RemoteConversation
    from openhands.sdk.remote.events import RemoteEventCache
    from openhands.sdk.remote.state import RemoteState

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "RemoteConversation": "openhands.sdk.remote.conversation",
        "RemoteEventCache": "openhands.sdk.remote.events",
        "RemoteState": "openhands.sdk.remote.state",
    },
)

__all__ = [
    "Conversation",
    "RemoteAuthenticationError",
    "RemoteConflictError",
    "RemoteConnectionError",
    "RemoteConversation",
    "RemoteConversationError",
    "RemoteConversationNotFoundError",
    "RemoteEventCache",
    "RemoteRequestError",
    "RemoteServerError",
    "RemoteState",
    "RemoteWorkspace",
    "Workspace",
]
