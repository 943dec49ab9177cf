"""The text format of a tool call and of its result, when tools travel in the prompt.

A call is written with tags (the format OpenHands' fine-tuned models and Qwen3-Coder were
trained on, so the names must stay as they are):

    <function=terminal>
    <parameter=command>ls -la</parameter>
    </function>

A value spans several lines by starting on the line after its opening tag. A result comes
back as a user message that starts with `EXECUTION RESULT of [terminal]:`.
"""

from __future__ import annotations

import json
from typing import Any

FUNCTION_OPEN = "<function="
FUNCTION_CLOSE = "</function>"
PARAMETER_OPEN = "<parameter="
PARAMETER_CLOSE = "</parameter>"

STOP_WORDS = ("</function",)
"""Sent as `stop` where the model takes it: the reply ends with its first call, before the
model can go on to imagine that call's result."""

RESULT_HEADER = "EXECUTION RESULT of [{name}]:"
"""How a tool's result starts in the message that carries it back to the model."""

RESULT_MARKER = "EXECUTION RESULT of ["
"""The start of `RESULT_HEADER`: a reply that writes one is imagining a result."""


def result_header(name: str) -> str:
    """The first line of the message carrying `name`'s result."""
    return RESULT_HEADER.format(name=name)


def render_value(value: Any) -> str:
    """A parameter value as the model writes it: text as it is, anything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def render_call(name: str, arguments: str) -> str:
    """One call (`arguments`: the JSON object string of a `MessageToolCall`) in tag form.

    Arguments that are not a JSON object (a malformed call kept in the history) are written
    inside the call as they were, so the model sees what it sent.
    """
    lines = [f"{FUNCTION_OPEN}{name}>"]
    try:
        decoded = json.loads(arguments or "{}")
    except ValueError:
        decoded = None
    if isinstance(decoded, dict):
        for key, value in decoded.items():
            text = render_value(value)
            if "\n" in text:
                lines.append(f"{PARAMETER_OPEN}{key}>\n{text}\n{PARAMETER_CLOSE}")
            else:
                lines.append(f"{PARAMETER_OPEN}{key}>{text}{PARAMETER_CLOSE}")
    elif arguments:
        lines.append(arguments)
    lines.append(FUNCTION_CLOSE)
    return "\n".join(lines)


__all__ = [
    "FUNCTION_CLOSE",
    "FUNCTION_OPEN",
    "PARAMETER_CLOSE",
    "PARAMETER_OPEN",
    "RESULT_HEADER",
    "RESULT_MARKER",
    "STOP_WORDS",
    "render_call",
    "render_value",
    "result_header",
]
