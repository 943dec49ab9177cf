"""Reading tool calls back out of a model's text reply.

`parse_reply(text, tools)` never raises: whatever the model wrote becomes either plain text
or tool calls, and a call that is wrong (an unknown tool, a missing or unknown parameter, a
value of the wrong type, arguments that are not JSON) is still returned as a call, so the
agent rejects it exactly as it rejects a wrong native call and the model reads why.

What is accepted, beyond the format the prompt teaches (`grammar.py`):

- a reply cut off by the stop word (no `</function>`, maybe a dangling `</`), or by the
  output limit (an unclosed last parameter ends where the call ends);
- several calls in one reply, run in order, except calls written after an imagined
  `EXECUTION RESULT` (the model was guessing a result; what follows is dropped);
- wrappers some models add: `<tool_call>` around a call, `</think>` right before it (calls
  are only looked for after a `</think>`: the reasoning before it may mention calls);
- `<parameter=name=value</parameter>`, a slip some models make;
- legacy tool names (`bash`, `execute_bash` -> `terminal`; `str_replace_editor` ->
  `file_editor`) when only the new name is offered;
- Hermes-style JSON calls (`<tool_call>{"name": ..., "arguments": {...}}</tool_call>`) from
  models that fall back on the format they were trained with.

Values are typed by the tool's schema: text stays text where a string is allowed, anything
else is read as JSON when it parses (`30`, `true`, `[1, 5]`) and left as text otherwise.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from typing import Any

from openhands.sdk.llm.message import MessageToolCall
from openhands.sdk.llm.prompt_tools.grammar import (
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    PARAMETER_CLOSE,
    RESULT_MARKER,
)

TOOL_NAME_ALIASES = {
    "bash": "terminal",
    "execute_bash": "terminal",
    "str_replace_editor": "file_editor",
    "str_replace": "file_editor",
}
"""Names older prompts taught for today's tools."""

_PARAMETER = re.compile(r"<parameter=([^>\n]*)>")
_SLIPPED_PARAMETER = re.compile(r"<parameter=([A-Za-z0-9_]+)=([^<>\n]*)</parameter>")
_HERMES = re.compile(r"<tool_call>\s*(\{.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_HERMES_NAME = re.compile(r'"name"\s*:\s*"([^"]+)"')
THINK_CLOSE = "</think>"
_WRAPPERS = ("<tool_call>", THINK_CLOSE)


class ParsedReply:
    """A reply split into the text the model wrote before its calls, and the calls."""

    __slots__ = ("calls", "text")

    def __init__(self, text: str, calls: list[MessageToolCall]) -> None:
        self.text = text
        self.calls = calls


def parse_reply(text: str, tools: Sequence[dict[str, Any]]) -> ParsedReply:
    """The text and the tool calls of a reply (see the module)."""
    schemas = _schemas(tools)
    # A reasoning model's <think> block may mention calls it then decides against.
    reasoning_end = text.rfind(THINK_CLOSE)
    offset = reasoning_end + len(THINK_CLOSE) if reasoning_end >= 0 else 0
    start = text.find(FUNCTION_OPEN, offset)
    if start < 0:
        return _parse_hermes(text, offset, schemas)
    calls: list[MessageToolCall] = []
    position = start
    while position >= 0:
        name_start = position + len(FUNCTION_OPEN)
        name_end = _first(text, name_start, ">", "\n")
        name = text[name_start:name_end].strip()
        body_start = name_end + 1 if text.startswith(">", name_end) else name_end
        end = _first(text, body_start, FUNCTION_CLOSE, FUNCTION_OPEN)
        body = _without_partial_close(text[body_start:end])
        calls.append(_call(name, _parameters(body), schemas))
        after = end + len(FUNCTION_CLOSE) if text.startswith(FUNCTION_CLOSE, end) else end
        position = text.find(FUNCTION_OPEN, after)
        if position >= 0 and RESULT_MARKER in text[after:position]:
            break
    return ParsedReply(_thought(text[:start]), calls)


def _first(text: str, start: int, *needles: str) -> int:
    """Where the first of `needles` occurs from `start` on (the end of `text` if none)."""
    found = [i for i in (text.find(n, start) for n in needles) if i >= 0]
    return min(found) if found else len(text)


def _without_partial_close(body: str) -> str:
    """`body` without a trailing piece of `</function>` (a reply cut by the stop word)."""
    stripped = body.rstrip()
    for size in range(len(FUNCTION_CLOSE) - 1, 1, -1):
        if stripped.endswith(FUNCTION_CLOSE[:size]):
            return stripped[:-size]
    return body


def _thought(text: str) -> str:
    text = text.rstrip()
    changed = True
    while changed:
        changed = False
        for wrapper in _WRAPPERS:
            if text.endswith(wrapper):
                text = text[: -len(wrapper)].rstrip()
                changed = True
    return text.strip()


def _parameters(body: str) -> list[tuple[str, str]]:
    """(name, raw value) pairs in order; a value ends at `</parameter>`, the next parameter
    or the end of the call."""
    body = _SLIPPED_PARAMETER.sub(r"<parameter=\1>\2</parameter>", body)
    matches = list(_PARAMETER.finditer(body))
    pairs: list[tuple[str, str]] = []
    for index, match in enumerate(matches):
        limit = matches[index + 1].start() if index + 1 < len(matches) else len(body)
        close = body.find(PARAMETER_CLOSE, match.end(), limit)
        raw = body[match.end() : close if close >= 0 else limit]
        pairs.append((match.group(1).strip(), _clean(raw)))
    return pairs


def _clean(raw: str) -> str:
    """A value without the line breaks the format puts around a multi-line value."""
    value = raw[1:] if raw.startswith("\n") else raw
    value = value[:-1] if value.endswith("\n") else value
    return value if "\n" in value else value.strip()


def _call(
    name: str, parameters: list[tuple[str, str]], schemas: dict[str, dict[str, Any]]
) -> MessageToolCall:
    name = _resolve_name(name, schemas)
    properties = (schemas.get(name) or {}).get("properties") or {}
    arguments = {key: _typed(value, properties.get(key)) for key, value in parameters}
    return MessageToolCall(id=new_call_id(), name=name, arguments=json.dumps(arguments))


def _resolve_name(name: str, schemas: dict[str, dict[str, Any]]) -> str:
    if name in schemas:
        return name
    alias = TOOL_NAME_ALIASES.get(name)
    return alias if alias is not None and alias in schemas else name


def _typed(value: str, schema: Any) -> Any:
    kinds = _kinds(schema)
    if not kinds or "string" in kinds:
        return value
    lowered = value.lower()
    if "boolean" in kinds and lowered in ("true", "false"):
        return lowered == "true"
    if "null" in kinds and lowered in ("null", "none", ""):
        return None
    try:
        return json.loads(value)
    except ValueError:
        return value


def _kinds(schema: Any) -> set[str]:
    """The JSON types a parameter's schema allows (empty: not known)."""
    if not isinstance(schema, dict):
        return set()
    kinds: set[str] = set()
    kind = schema.get("type")
    if isinstance(kind, str):
        kinds.add(kind)
    elif isinstance(kind, list):
        kinds.update(str(k) for k in kind)
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or ():
            kinds |= _kinds(option)
    if not kinds and isinstance(schema.get("enum"), list):
        kinds.update("string" if isinstance(v, str) else "any" for v in schema["enum"])
    if "$ref" in schema and not kinds:
        kinds.add("object")
    return kinds


def _schemas(tools: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each tool's parameters schema, by name."""
    out: dict[str, dict[str, Any]] = {}
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name"):
            parameters = function.get("parameters")
            out[str(function["name"])] = parameters if isinstance(parameters, dict) else {}
    return out


def _parse_hermes(text: str, offset: int, schemas: dict[str, dict[str, Any]]) -> ParsedReply:
    matches = list(_HERMES.finditer(text, offset))
    if not matches:
        return ParsedReply(text.strip(), [])
    calls: list[MessageToolCall] = []
    for match in matches:
        blob = match.group(1)
        try:
            data = json.loads(blob)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            arguments = data.get("arguments", data.get("parameters", {}))
            encoded = arguments if isinstance(arguments, str) else json.dumps(arguments)
            name = data["name"]
        else:  # unreadable JSON: keep it as the arguments, so the agent reports the error
            found = _HERMES_NAME.search(blob)
            name, encoded = (found.group(1) if found else ""), blob
        name = _resolve_name(name, schemas)
        calls.append(MessageToolCall(id=new_call_id(), name=name, arguments=encoded))
    return ParsedReply(_thought(text[: matches[0].start()]), calls)


def new_call_id() -> str:
    """A fresh tool-call id (calls written as text carry none)."""
    return f"call_{uuid.uuid4().hex[:24]}"


__all__ = ["TOOL_NAME_ALIASES", "ParsedReply", "new_call_id", "parse_reply"]
