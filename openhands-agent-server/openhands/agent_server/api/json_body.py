"""A JSON request body, checked before any model sees it: how many items, lone surrogates.

Why count before parsing: Python's JSON parser holds the interpreter lock for the whole
parse, so a body of 700,000 tiny keys (7 MB, under the size cap) would stall every other
request for about a second even in a worker thread, and validating it would then take
many seconds more. `count_items` walks the raw bytes in short C-level steps (a worker thread
can be interrupted between them) and stops as soon as the count passes the cap
(`OH_MAX_JSON_ITEMS`); only a body within the cap is parsed.

Why look for surrogates: JSON may spell a lone UTF-16 surrogate (`"\\ud800"`); Python
decodes it into a `str` that pydantic validates but cannot serialize, so the request would
fail later, when its event or state is written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from openhands.sdk.llm.message import LONE_SURROGATE
from pydantic import TypeAdapter, ValidationError

# Any escaped surrogate (paired or not): a cheap test that skips almost every body.
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")

ITEMS_SETTING = "OH_MAX_JSON_ITEMS"


def too_many_items_message(limit: int) -> str:
    """What a client whose body holds too many keys and items is told."""
    return (
        f"The request body holds more than {limit} JSON keys and list items, the server's "
        f"limit ({ITEMS_SETTING}); send fewer, or raise {ITEMS_SETTING} on the server."
    )


STEP = 1 << 16
"""Bytes looked at in one C-level step of `count_items` (each holds the interpreter lock)."""


def count_items(body: bytes, limit: int) -> int:
    """Commas and containers outside strings (at least the number of keys and list items);
    stops counting once past `limit` (0: counts everything).

    Works through `body` in `STEP`-sized windows, so no single step holds the interpreter lock
    for long, whatever the body looks like.
    """
    count = 0
    inside = False  # whether the current part (text between two quotes) is in a string
    escaped = False  # inside: the part so far ends with an odd run of backslashes
    for start in range(0, len(body), STEP):
        parts = body[start : start + STEP].split(b'"')
        last = len(parts) - 1
        for index, part in enumerate(parts):
            if inside:
                run = len(part) - len(part.rstrip(b"\\"))
                if run == len(part):  # only backslashes: the run goes on from before
                    escaped = escaped ^ (run % 2 == 1) if index == 0 else run % 2 == 1
                else:
                    escaped = run % 2 == 1
                if index < last:  # a quote follows: it closes the string unless escaped
                    inside, escaped = escaped, False
                continue
            count += part.count(b",") + part.count(b"{") + part.count(b"[")
            if limit and count > limit:
                return count
            if index < last:
                inside = True  # the quote after this part opens a string
    return count


MAX_ERRORS_SHOWN = 10
"""How many validation problems an answer names (see edge/error_handlers.py)."""

PREVALIDATE_ITEMS = 1_000
"""A body with more items is validated here, where its errors are made without the input
they refer to (FastAPI copies each error's input: seconds for 100,000 errors)."""


@dataclass
class InspectedBody:
    """The parsed body (when it parsed) and what is wrong with it, if anything."""

    data: Any = None
    parsed: bool = False
    too_many_items: bool = False
    surrogate_at: tuple[str | int, ...] | None = None
    errors: list[dict[str, Any]] | None = None
    """Validation problems found here (the first few), with `error_count` of them in all."""
    error_count: int = 0


def inspect_body(
    body: bytes, max_items: int, validator: TypeAdapter[Any] | None = None
) -> InspectedBody:
    """Count, parse and check `body` (blocking: run a large one in a worker thread).

    With `validator`, a body of more than PREVALIDATE_ITEMS items is also validated, and its
    first problems kept. A body that is not JSON is left for FastAPI to report (`parsed`
    False).
    """
    items = count_items(body, max_items)
    if max_items and items > max_items:
        return InspectedBody(too_many_items=True)
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return InspectedBody()
    found = InspectedBody(data=data, parsed=True)
    if _ESCAPED_SURROGATE.search(body):
        found.surrogate_at = lone_surrogate_location(data)
    if validator is not None and items > PREVALIDATE_ITEMS and found.surrogate_at is None:
        try:
            validator.validate_python(data, from_attributes=True)
        except ValidationError as exc:
            found.error_count = exc.error_count()
            shown = exc.errors(include_url=False, include_context=False, include_input=False)
            found.errors = [
                {**error, "loc": ("body", *error["loc"])} for error in shown[:MAX_ERRORS_SHOWN]
            ]
    return found


def lone_surrogate_location(data: Any) -> tuple[str | int, ...] | None:
    """Where a string holding a lone surrogate is in parsed JSON (for a key: its object).

    None when there is none.
    """
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
