"""The errors a `RemoteConversation` raises: those of talking to an agent server.

They live with the server's transport (`openhands.sdk.workspace.remote.errors`), which the
remote workspace uses too; this module keeps their import path.
"""

from openhands.sdk.workspace.remote.errors import (
    START_HINT,
    RemoteAuthenticationError,
    RemoteConnectionError,
    RemoteConversationError,
    RemoteConversationNotFoundError,
    RemoteRequestError,
    RemoteServerError,
)

__all__ = [
    "START_HINT",
    "RemoteAuthenticationError",
    "RemoteConnectionError",
    "RemoteConversationError",
    "RemoteConversationNotFoundError",
    "RemoteRequestError",
    "RemoteServerError",
]
