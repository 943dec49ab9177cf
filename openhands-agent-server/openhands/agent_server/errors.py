"""Errors the services raise; the app turns each into its HTTP status with a clear message.

ServerError                  base: carries the HTTP status code
├── NotFoundError            404: unknown conversation or event
├── ConflictError            409: already running, another goal active
├── BadRequestError          400: nothing to resume, a hook refused a message
├── ForbiddenError           403: a path the agent's sandbox hides or may not write
├── InvalidRequestError      422: a field is wrong (names the field in `loc`)
└── UpstreamError            502: a call the server made for the request failed (an LLM's)
"""

from __future__ import annotations

from openhands.sdk.errors import OpenHandsError


class ServerError(OpenHandsError):
    """An error with an HTTP status and a message telling the client what to do.

    `code`, when given, is a stable machine-readable name answered as the body's `detail`
    (e.g. "no_resumable_goal"); without one, `detail` repeats the message.
    """

    status_code = 500

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class NotFoundError(ServerError):
    """The conversation or event does not exist."""

    status_code = 404


class ConflictError(ServerError):
    """The request conflicts with what is happening now (a run or goal in progress)."""

    status_code = 409


class BadRequestError(ServerError):
    """The request cannot be honoured in the current state (e.g. nothing to resume)."""

    status_code = 400


class ForbiddenError(ServerError):
    """The request names a path the agent's sandbox hides, or one it may not write."""

    status_code = 403


class InvalidRequestError(ServerError):
    """A field of the request is invalid; `loc` names it, e.g. ("body", "agent", "tools")."""

    status_code = 422

    def __init__(self, message: str, loc: tuple[str | int, ...]) -> None:
        super().__init__(message)
        self.loc = loc


class UpstreamError(ServerError):
    """A call the server made on the request's behalf failed (an LLM's); the message says
    which and why."""

    status_code = 502
