"""Errors talking to an agent server (a `RemoteWorkspace` or a `RemoteConversation`), each
naming the fix.

ConversationError (openhands.sdk.conversation.errors)
└── RemoteConversationError           talking to the agent server failed
    ├── RemoteConnectionError         the server cannot be reached (also ConnectionError)
    ├── RemoteAuthenticationError     401/403: missing or wrong session key (also PermissionError)
    ├── RemoteConversationNotFoundError   404: no such conversation (also LookupError)
    ├── RemoteRequestError            400/422: the server rejected the request (also ValueError)
    ├── RemoteConflictError           409 with a code: the conversation's state forbids it now
    └── RemoteServerError             any other unexpected answer (5xx, bad JSON)

`ConversationRunError` and `ConversationAlreadyRunningError` are raised as for a local
conversation: a failed run, and a 409 without a code (a run or a goal in progress).
"""

from __future__ import annotations

from openhands.sdk.conversation.errors import ConversationError

START_HINT = "Start one with `make serve` (or `uv run openhands-agent-server --port 8000`)"


class RemoteConversationError(ConversationError):
    """Base class of errors talking to an agent server."""


class RemoteConnectionError(RemoteConversationError, ConnectionError):
    """The agent server cannot be reached (refused, timed out, or the socket died for good)."""

    def __init__(self, host: str, cause: str) -> None:
        super().__init__(
            f"Cannot reach the agent server at {host} ({cause}). {START_HINT} "
            "and check RemoteWorkspace.host."
        )
        self.host = host
        self.cause = cause


class RemoteAuthenticationError(RemoteConversationError, PermissionError):
    """The server refused the session API key (HTTP 401/403)."""

    def __init__(self, host: str, status_code: int, has_key: bool) -> None:
        if has_key:
            what = "rejected the session API key"
        else:
            what = "needs a session API key and none was given"
        super().__init__(
            f"The agent server at {host} {what} (HTTP {status_code}). Set "
            "RemoteWorkspace(api_key=...) to one of the server's OH_SESSION_API_KEYS; it is "
            "sent as the X-Session-API-Key header."
        )
        self.host = host
        self.status_code = status_code
        self.has_key = has_key


class RemoteConversationNotFoundError(RemoteConversationError, LookupError):
    """The server does not know the conversation (HTTP 404), or what a request named in it;
    `code` is the server's stable reason when it gave one (e.g. `unknown_event`), `detail`
    its message."""

    def __init__(self, message: str, *, code: str | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.detail = detail or message


class RemoteRequestError(RemoteConversationError, ValueError):
    """The server rejected a request as invalid (HTTP 400/422); the message is its detail."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(f"The agent server rejected the request (HTTP {status_code}): {detail}")
        self.status_code = status_code
        self.detail = detail


class RemoteConflictError(RemoteConversationError):
    """The server refused the request in the conversation's present state (HTTP 409), for the
    reason its `code` names (e.g. `no_condenser`, `workspace_changing`); the message says
    what would make it possible."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(f"The agent server refused the request ({code}): {detail}")
        self.code = code
        self.detail = detail


class RemoteServerError(RemoteConversationError):
    """The server answered something unexpected (a 5xx or a malformed body)."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(f"The agent server failed (HTTP {status_code}): {detail}")
        self.status_code = status_code
        self.detail = detail
