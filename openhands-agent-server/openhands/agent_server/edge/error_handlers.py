"""How exceptions become answers: always `{"message", "detail"}` JSON, never a traceback.

ServerError (errors.py)      its own status (404, 409, 400, 422)
RequestValidationError       422, one `detail` entry per bad field, the first ten (input never
                             echoed)
HTTPException                its status (401 key, 405, 413 body ...)
StorageFullError             507: the disk is full; free space and retry
StorageError                 503: the disk refused a read or write; check it and retry
anything else                500 (`UnhandledErrors`), logged with its traceback

Why `UnhandledErrors` instead of an `Exception` handler: Starlette runs that handler in its
outermost middleware and then re-raises the exception to the server, and uvicorn answers an
exception raised after a response by closing the connection (without `Connection: close`),
so a keep-alive client's next request failed. `UnhandledErrors` answers and swallows it, so
the connection stays usable.
"""

from __future__ import annotations

import itertools
import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from openhands.agent_server.errors import InvalidRequestError, ServerError
from openhands.sdk.errors import StorageError, StorageFullError
from openhands.sdk.wire import ErrorDetail, ErrorResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = logging.getLogger("openhands.agent_server.app")

MAX_ERROR_DETAILS = 10
"""How many problems a 422 lists (its message says how many more there were)."""


def error_response(status: int, message: str, detail: Any = None) -> JSONResponse:
    """The JSON answer for an error: `message` plus `detail` (the message again if none)."""
    body = ErrorResponse(message=message, detail=message if detail is None else detail)
    return JSONResponse(body.model_dump(mode="json"), status_code=status)


async def send_error(
    send: Send, status: int, message: str, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    """Send an error answer from ASGI middleware (same shape as `error_response`)."""
    body = json.dumps({"message": message, "detail": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def storage_full_message(exc: StorageFullError) -> str:
    """What a client is told when the disk is full."""
    return (
        f"The server's storage is full: {exc}. The request was not carried out; free disk "
        "space on the server (or raise its quota), then retry."
    )


def storage_error_message(exc: StorageError) -> str:
    """What a client is told when the disk refused a read or a write."""
    return (
        f"The server's storage failed: {exc}. The request was not carried out; retry once "
        "the server's disk is writable again."
    )


def install_error_handlers(app: FastAPI) -> None:
    """Register the JSON answers for every known error, and the catch-all for the rest."""

    @app.exception_handler(InvalidRequestError)
    async def invalid(_: Request, exc: InvalidRequestError) -> JSONResponse:
        field = ".".join(str(part) for part in exc.loc)
        detail = [ErrorDetail(loc=list(exc.loc), msg=exc.message, type="value_error")]
        return error_response(exc.status_code, f"{field}: {exc.message}", detail)

    @app.exception_handler(ServerError)
    async def server_error(_: Request, exc: ServerError) -> JSONResponse:
        return error_response(exc.status_code, exc.message, exc.code)

    @app.exception_handler(RequestValidationError)
    async def validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        # Never echo the input back: it may hold an API key. Only the first problems: a
        # body with 100,000 unknown keys must not get a 100,000-entry answer.
        errors = exc.errors()
        details = [
            ErrorDetail(
                loc=list(err.get("loc", ())),
                msg=str(err.get("msg", "")),
                type=str(err.get("type", "")),
            )
            for err in itertools.islice(errors, MAX_ERROR_DETAILS)
        ]
        lines = [f"{'.'.join(str(p) for p in d.loc)}: {d.msg}" for d in details]
        # A body checked before FastAPI's validation carries only its first problems.
        more = getattr(exc, "total_errors", len(errors)) - len(details)
        if more > 0:
            lines.append(f"and {more} more problems (only the first {MAX_ERROR_DETAILS} shown)")
        return error_response(422, "; ".join(lines) or "invalid request", details)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        response = error_response(exc.status_code, str(exc.detail))
        for name, value in (exc.headers or {}).items():
            response.headers[name] = value
        return response

    @app.exception_handler(StorageFullError)
    async def storage_full(request: Request, exc: StorageFullError) -> JSONResponse:
        logger.error("storage full on %s %s: %s", request.method, request.url.path, exc)
        return error_response(507, storage_full_message(exc))

    @app.exception_handler(StorageError)
    async def storage_failed(request: Request, exc: StorageError) -> JSONResponse:
        logger.error("storage error on %s %s: %s", request.method, request.url.path, exc)
        return error_response(503, storage_error_message(exc))

    app.add_middleware(UnhandledErrors)


class UnhandledErrors:
    """ASGI middleware: an exception no handler took becomes a logged 500 JSON answer.

    The exception stops here, so the server keeps the connection open. If the response had
    already started, it cannot be answered any more: the exception goes on and the server
    closes the connection (the client sees a truncated response, as it must).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app; answer 500 for an exception raised before the response started."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            logger.exception("unhandled error on %s %s", scope["method"], scope["path"])
            if started:
                raise
            message = f"Internal server error ({type(exc).__name__}); see the server log."
            await send_error(send, 500, message)
