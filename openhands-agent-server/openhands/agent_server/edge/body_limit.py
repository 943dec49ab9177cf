"""The request body cap (`OH_MAX_BODY_BYTES`), enforced while the body streams.

A declared Content-Length over the cap is refused before a byte of the body is read. A body
without one (chunked) is counted as it arrives, and the read that passes the cap raises
`BodyTooLargeError` instead of handing the bytes to the route, so the server never holds
more than the cap (plus one chunk) of any request.
"""

from __future__ import annotations

from openhands.sdk.errors import OpenHandsError
from starlette.exceptions import HTTPException
from starlette.types import Message, Receive

SETTING = "OH_MAX_BODY_BYTES"


def too_large_message(limit: int) -> str:
    """What a client whose body passed the cap is told."""
    return (
        f"The request body is larger than {limit} bytes, the server's limit ({SETTING}); "
        f"send a smaller body, or raise {SETTING} on the server."
    )


class BodyTooLargeError(HTTPException, OpenHandsError):
    """Raised by a capped `receive` once the body passes the cap (answered 413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(status_code=413, detail=too_large_message(limit))


def declared_too_large(content_length: bytes | None, limit: int) -> bool:
    """Whether a Content-Length header already announces a body over `limit` (0: no cap)."""
    if not limit or content_length is None:
        return False
    try:
        return int(content_length) > limit
    except ValueError:
        return False  # the HTTP parser refuses a malformed length before we run


def capped(receive: Receive, limit: int) -> Receive:
    """`receive` that raises BodyTooLargeError once more than `limit` body bytes arrived."""
    received = 0

    async def receive_capped() -> Message:
        nonlocal received
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise BodyTooLargeError(limit)
        return message

    return receive_capped
