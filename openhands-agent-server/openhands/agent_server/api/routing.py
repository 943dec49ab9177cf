"""`CheckedRoute`: the route class of every REST router; it refuses bodies no model can store.

JSON may spell a lone UTF-16 surrogate (`"\\ud800"`); Python decodes it into a `str` that
pydantic validates but cannot serialize, so the request would fail later, when its event or
state is written (a 500, or a goal that dies in the background). Such a body is answered 422
with the field named, before any route runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from openhands.sdk.llm.message import LONE_SURROGATE

# Any escaped surrogate (paired or not): a cheap test that skips almost every body.
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class CheckedRoute(APIRoute):
    """An APIRoute that answers 422 for a JSON body holding a lone surrogate."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """The default handler, preceded by the body check."""
        handler = super().get_route_handler()

        async def checked(request: Request) -> Response:
            body = await request.body()  # cached on the request: FastAPI reads it again
            if _ESCAPED_SURROGATE.search(body):
                loc = lone_surrogate_location(body)
                if loc is not None:
                    raise RequestValidationError(
                        [
                            {
                                "loc": ("body", *loc),
                                "msg": "text holds a lone UTF-16 surrogate, which is not "
                                "valid Unicode; send well-formed text (UTF-8, or paired "
                                "\\ud83d\\ude00-style escapes)",
                                "type": "string_unicode",
                            }
                        ]
                    )
            return await handler(request)

        return checked


def lone_surrogate_location(body: bytes) -> tuple[str | int, ...] | None:
    """Where a string holding a lone surrogate is in a JSON body (for a key: its object).

    None when there is none, or when the body is not JSON (FastAPI's parsing reports that).
    """
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    # Iterative: a body nested close to the recursion limit must not crash the check.
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(data, ())]
    while stack:
        value, loc = stack.pop()
        if isinstance(value, str):
            if LONE_SURROGATE.search(value):
                return loc
        elif isinstance(value, dict):
            for key, item in value.items():
                if LONE_SURROGATE.search(key):
                    return loc
                stack.append((item, (*loc, key)))
        elif isinstance(value, list):
            stack.extend((item, (*loc, index)) for index, item in enumerate(value))
    return None
