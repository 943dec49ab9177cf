"""The system-prompt section that teaches a model without tool calling to call our tools.

`tools_section(tools)` renders the OpenAI tool dicts an agent would send natively as plain
text: how to write a call (`grammar.py`), a short example, then each tool with its
description and parameters (type, required or not, allowed values, default, nested fields).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from openhands.sdk.llm.prompt_tools.grammar import result_header

MAX_DEPTH = 3
"""How deep nested object and array parameters are described."""

INSTRUCTIONS = """\
# Calling tools

You have tools to act with. Your reply is read as plain text, so a tool call must be written
with these tags, exactly:

<function=TOOL_NAME>
<parameter=PARAMETER_NAME>value</parameter>
<parameter=OTHER_PARAMETER>
a value may also
span several lines
</parameter>
</function>

Rules:
- One call per reply, at the very end of it: write nothing after </function>. A few words
  before the call may say what you are about to do.
- Wait for the result: it arrives in the next message, which starts with
  "{result}". Never write a result yourself.
- Give every required parameter. Write values as they are, without quotes or escaping;
  numbers as digits, booleans as true or false, lists and objects as JSON.
- When no tool is needed (for example for your final answer), reply in plain text with no
  <function= tag at all.
"""

EXAMPLE_INTRO = "\nFor example, a reply that creates a file:\n\n"


def tools_section(tools: Sequence[dict[str, Any]]) -> str:
    """The text appended to the system prompt: the rules, an example and every tool."""
    parts = [INSTRUCTIONS.format(result=result_header("TOOL_NAME"))]
    example = _example(tools)
    if example:
        parts.append(EXAMPLE_INTRO + example + "\n")
    parts.append("\n# The tools\n")
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name"):
            parts.append("\n" + describe_tool(function))
    return "".join(parts)


def _example(tools: Sequence[dict[str, Any]]) -> str:
    """A worked call with a tool the model has (the file editor or, failing that, none)."""
    names = {str((tool.get("function") or {}).get("name")) for tool in tools}
    if "file_editor" in names:
        return (
            "I will write the script.\n"
            "<function=file_editor>\n"
            "<parameter=command>create</parameter>\n"
            "<parameter=path>hello.py</parameter>\n"
            "<parameter=file_text>\n"
            "def main():\n"
            '    print("hello")\n'
            "\n"
            "main()\n"
            "</parameter>\n"
            "</function>"
        )
    return ""


def describe_tool(function: dict[str, Any]) -> str:
    """One tool: its name, description and parameters."""
    lines = [f"## {function['name']}"]
    description = str(function.get("description") or "").strip()
    if description:
        lines.append(description)
    parameters = function.get("parameters")
    if not isinstance(parameters, dict):
        parameters = {}
    properties = parameters.get("properties")
    if not isinstance(properties, dict) or not properties:
        lines.append("Parameters: none.")
        return "\n".join(lines) + "\n"
    lines.append("Parameters:")
    definitions = parameters.get("$defs") or parameters.get("definitions") or {}
    required = set(parameters.get("required") or ())
    for name, schema in properties.items():
        lines.extend(_describe_parameter(name, schema, name in required, definitions, 1))
    return "\n".join(lines) + "\n"


def _describe_parameter(
    name: str, schema: Any, required: bool, definitions: dict[str, Any], depth: int
) -> list[str]:
    schema = _resolve(schema, definitions)
    indent = "  " * depth
    facts = [type_label(schema, definitions), "required" if required else "optional"]
    choices = _enum(schema, definitions)
    if choices:
        facts.append("one of: " + ", ".join(render_json(choice) for choice in choices))
    if isinstance(schema, dict) and "default" in schema and schema["default"] is not None:
        facts.append("default: " + render_json(schema["default"]))
    line = f"{indent}- {name} ({'; '.join(facts)})"
    description = schema.get("description") if isinstance(schema, dict) else None
    if isinstance(description, str) and description.strip():
        line += ": " + " ".join(description.split())
    lines = [line]
    if depth < MAX_DEPTH:
        nested = _object_of(schema, definitions)
        if nested is not None:
            inner_required = set(nested.get("required") or ())
            for inner, inner_schema in (nested.get("properties") or {}).items():
                lines.extend(
                    _describe_parameter(
                        inner, inner_schema, inner in inner_required, definitions, depth + 1
                    )
                )
    return lines


def _resolve(schema: Any, definitions: dict[str, Any]) -> Any:
    """`schema` with a local `$ref` replaced by its definition (one level)."""
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        target = definitions.get(schema["$ref"].rsplit("/", 1)[-1])
        if isinstance(target, dict):
            return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _options(schema: Any) -> list[Any] | None:
    if not isinstance(schema, dict):
        return None
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return schema[key]
    return None


def type_label(schema: Any, definitions: dict[str, Any] | None = None) -> str:
    """A short type name for a JSON schema: `string`, `integer or null`, `array of string`."""
    definitions = definitions or {}
    schema = _resolve(schema, definitions)
    if not isinstance(schema, dict):
        return "any"
    options = _options(schema)
    if options is not None:
        labels = [type_label(option, definitions) for option in options]
        concrete = [label for label in dict.fromkeys(labels) if label != "null"]
        return " or ".join(concrete) or "null"
    kind = schema.get("type")
    if isinstance(kind, list):
        concrete = [str(k) for k in kind if k != "null"]
        return " or ".join(concrete) or "null"
    if kind == "array":
        items = schema.get("items")
        return f"array of {type_label(items, definitions)}" if items else "array"
    if isinstance(kind, str):
        return kind
    if "enum" in schema:
        return "string" if all(isinstance(v, str) for v in schema["enum"]) else "any"
    if "properties" in schema:
        return "object"
    return "any"


def _enum(schema: Any, definitions: dict[str, Any]) -> list[Any]:
    if not isinstance(schema, dict):
        return []
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    if "const" in schema:
        return [schema["const"]]
    for option in _options(schema) or []:
        found = _enum(_resolve(option, definitions), definitions)
        if found:
            return found
    return []


def _object_of(schema: Any, definitions: dict[str, Any]) -> dict[str, Any] | None:
    """The object schema whose fields are worth listing under a parameter, if any."""
    if not isinstance(schema, dict):
        return None
    if isinstance(schema.get("properties"), dict) and schema["properties"]:
        return schema
    if schema.get("type") == "array":
        return _object_of(_resolve(schema.get("items"), definitions), definitions)
    for option in _options(schema) or []:
        found = _object_of(_resolve(option, definitions), definitions)
        if found is not None:
            return found
    return None


def render_json(value: Any) -> str:
    """A schema value (an enum choice, a default) as the model would write it ("" for an
    empty text, so it shows)."""
    if isinstance(value, str) and value:
        return value
    return json.dumps(value, ensure_ascii=False)


__all__ = ["INSTRUCTIONS", "describe_tool", "tools_section", "type_label"]
