"""The request body cap (`OH_MAX_BODY_BYTES`) and pace (`OH_HTTP_BODY_TIMEOUT_SECONDS`),
enforced while the body streams.

A declared Content-Length over the cap is refused before a byte of the body is read. A body
without one (chunked) is counted as it arrives, and the read that passes the cap raises
`BodyTooLargeError` instead of handing the bytes to the route, so the server never holds
more than the cap (plus one chunk) of any request. A body that stops arriving for longer
than the pace allows raises `BodyTimeoutError` (408): a client sending a byte now and then
cannot hold a request open for ever.
"""

from __future__ import annotations

import asyncio

from openhands.sdk.errors import OpenHandsError
from starlette.exceptions import HTTPException
from starlette.types import Message, Receive

SETTING = "OH_MAX_BODY_BYTES"
PACE_SETTING = "OH_HTTP_BODY_TIMEOUT_SECONDS"


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


class BodyTimeoutError(HTTPException, OpenHandsError):
    """Raised by a capped `receive` when the body pauses too long (answered 408)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            status_code=408,
            detail=f"The request body stopped arriving for {seconds:g} s ({PACE_SETTING}); "
            "send it without pauses, or raise the setting on the server.",
        )


def capped(receive: Receive, limit: int, pause: float = 0.0) -> Receive:
    """`receive` that raises BodyTooLargeError once more than `limit` body bytes arrived (0: no
    cap) and BodyTimeoutError when the body pauses longer than `pause` seconds (0: no limit).
    """
    received = 0
    body_done = False

    async def receive_capped() -> Message:
        nonlocal received, body_done
        if pause and not body_done:
            try:
                message = await asyncio.wait_for(receive(), pause)
            except TimeoutError:
                raise BodyTimeoutError(pause) from None
        else:
            message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if limit and received > limit:
                raise BodyTooLargeError(limit)
            body_done = not message.get("more_body", False)
        return message

    return receive_capped
