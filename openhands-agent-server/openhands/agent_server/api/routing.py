"""`CheckedRoute`: the route class of every REST router; it checks a JSON body before any
model sees it (`json_body.py`).

A body with more keys and list items than `OH_MAX_JSON_ITEMS` is answered 413 without being
parsed; a body holding a lone UTF-16 surrogate is answered 422 naming the field. A body over
`INLINE_BYTES` is counted, parsed and (when it has many items) validated in a control thread;
an invalid one is answered with its first problems, made without copying the input into each
(FastAPI's own validation takes seconds for a body with 100,000 problems). The parsed JSON is
handed to FastAPI, which does not parse again.
"""

from __future__ import annotations

import asyncio
import email.message
import functools
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from openhands.agent_server.api.json_body import inspect_body, too_many_items_message
from openhands.sdk.errors import OpenHandsError
from pydantic import TypeAdapter
from starlette.exceptions import HTTPException

INLINE_BYTES = 64 * 1024
"""Bodies up to this size are checked on the event loop (it takes well under a millisecond)."""

DEFAULT_MAX_ITEMS = 20_000
"""The item cap of an app built without a ServerConfig (tests)."""


class FirstValidationErrors(RequestValidationError, OpenHandsError):
    """The first problems of a body with many (`total_errors` in all)."""

    def __init__(self, errors: list[dict[str, Any]], total_errors: int) -> None:
        super().__init__(errors)
        self.total_errors = total_errors


class CheckedRoute(APIRoute):
    """An APIRoute that refuses JSON bodies with too many items or a lone surrogate."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """The default handler, preceded by the body check."""
        handler = super().get_route_handler()
        validators: list[TypeAdapter[Any] | None] = []  # built on the first large body

        def validator() -> TypeAdapter[Any] | None:
            if not validators:
                field = self.body_field
                annotation = field.field_info.annotation if field is not None else None
                validators.append(
                    TypeAdapter(annotation)
                    if annotation is not None and not self._embed_body_fields
                    else None
                )
            return validators[0]

        async def checked(request: Request) -> Response:
            body = await request.body()  # cached on the request: FastAPI reads it again
            if body and _is_json(request):
                await _check(request, body, validator if len(body) > INLINE_BYTES else None)
            return await handler(request)

        return checked


async def _check(
    request: Request, body: bytes, validator: Callable[[], TypeAdapter[Any] | None] | None
) -> None:
    config = getattr(request.app.state, "config", None)
    max_items = config.max_json_items if config is not None else DEFAULT_MAX_ITEMS
    if validator is None:
        found = inspect_body(body, max_items)
    else:
        check = functools.partial(inspect_body, body, max_items, validator())
        pools = getattr(request.app.state, "pools", None)
        found = await (pools.controls.run(check) if pools is not None else asyncio.to_thread(check))
    if found.too_many_items:
        raise HTTPException(413, too_many_items_message(max_items))
    if found.errors is not None:
        raise FirstValidationErrors(found.errors, found.error_count)
    if found.surrogate_at is not None:
        raise RequestValidationError(
            [
                {
                    "loc": ("body", *found.surrogate_at),
                    "msg": "text holds a lone UTF-16 surrogate, which is not valid Unicode; "
                    "send well-formed text (UTF-8, or paired \\ud83d\\ude00-style escapes)",
                    "type": "string_unicode",
                }
            ]
        )
    if found.parsed:
        request._json = found.data  # what Request.json() returns: FastAPI parses no more


def _is_json(request: Request) -> bool:
    """Whether FastAPI would read the body as JSON (its own rule: no type, or a json one)."""
    content_type = request.headers.get("content-type")
    if not content_type:
        return True
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )
