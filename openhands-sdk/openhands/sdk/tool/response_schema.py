"""Structured output: extra fields a tool call must carry (`Tool(params={"response_schema"})`).

A response schema (a pydantic model class, or a JSON schema of an object) adds its fields to
a tool's parameters. The LLM fills them with every call; they are split off before the
tool's own Action is validated and can be read back with `ToolDefinition.parse_response`.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from openhands.sdk.errors import InvalidArgumentError, InvalidArgumentTypeError, OpenHandsError
from pydantic import BaseModel

ResponseSchema = type[BaseModel] | dict[str, Any]

RESERVED_FIELDS = frozenset({"kind", "security_risk", "structured_output", "summary"})
"""Field names a response schema may not use (the SDK's own meta-fields)."""


class ResponseSchemaError(InvalidArgumentError):
    """A `response_schema` cannot be used (not an object, open to extra fields, or fields the
    SDK or the tool already use); the message says which rule it breaks."""


class StructuredOutputError(OpenHandsError, ValueError):
    """A tool call's structured output does not match its `response_schema`; the message names
    the mismatch (the agent shows it to the LLM, which retries)."""


@functools.lru_cache(maxsize=128)
def _model_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def schema_json(response_schema: ResponseSchema) -> dict[str, Any]:
    """The JSON schema of `response_schema` (a copy), checked to describe an object."""
    if isinstance(response_schema, dict):
        schema = copy.deepcopy(response_schema)
    elif isinstance(response_schema, type) and issubclass(response_schema, BaseModel):
        schema = copy.deepcopy(_model_schema(response_schema))
    else:
        raise InvalidArgumentTypeError(
            "response_schema must be a pydantic model class or a JSON schema dict, got "
            f"{type(response_schema).__name__}"
        )
    if schema.get("type") != "object" or not schema.get("properties"):
        raise ResponseSchemaError("response_schema must describe an object with named properties")
    if schema.get("additionalProperties") not in (None, False):
        raise ResponseSchemaError("response_schema cannot allow additional properties")
    return _inline_refs(schema, schema.get("$defs", {}))


def _inline_refs(node: Any, defs: dict[str, Any], seen: frozenset[str] = frozenset()) -> Any:
    """`node` with local `$ref`s replaced by their definitions (a cycle stops at `object`)."""
    if isinstance(node, list):
        return [_inline_refs(item, defs, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name in seen or name not in defs:
            return {"type": "object"}
        target = _inline_refs(defs[name], defs, seen | {name})
        return {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return {
        key: _inline_refs(value, defs, seen)
        for key, value in node.items()
        if key not in ("$defs", "title")
    }


def response_fields(response_schema: ResponseSchema) -> set[str]:
    """The property names `response_schema` adds."""
    return set(schema_json(response_schema)["properties"])


def check_response_schema(response_schema: ResponseSchema, tool_fields: set[str]) -> None:
    """Raise ValueError if the schema uses a reserved name or one of the tool's own fields."""
    fields = response_fields(response_schema)
    reserved = fields & RESERVED_FIELDS
    if reserved:
        raise ResponseSchemaError(f"response_schema fields {sorted(reserved)} are reserved")
    overlap = fields & tool_fields
    if overlap:
        raise ResponseSchemaError(
            f"response_schema fields {sorted(overlap)} collide with the tool's own"
        )


def merge_into(parameters: dict[str, Any], response_schema: ResponseSchema) -> dict[str, Any]:
    """A tool's JSON parameters with the response schema's properties (and requireds) added."""
    extra = schema_json(response_schema)
    merged = copy.deepcopy(parameters)
    merged.setdefault("type", "object")
    merged.setdefault("properties", {}).update(extra["properties"])
    required = merged.setdefault("required", [])
    required.extend(name for name in extra.get("required", []) if name not in required)
    return merged


def split_arguments(
    arguments: dict[str, Any], response_schema: ResponseSchema | None
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(the tool's own arguments, the validated structured output or None)."""
    if response_schema is None:
        return dict(arguments), None
    names = response_fields(response_schema)
    own = {key: value for key, value in arguments.items() if key not in names}
    extra = {key: value for key, value in arguments.items() if key in names}
    return own, validate_output(response_schema, extra)


def validate_output(response_schema: ResponseSchema, data: dict[str, Any]) -> dict[str, Any]:
    """`data` checked against the schema (ValueError names what is wrong), as plain JSON."""
    if isinstance(response_schema, type):
        return response_schema.model_validate(data).model_dump(mode="json")
    import jsonschema  # lazily: only dict schemas need it

    try:
        jsonschema.validate(data, schema_json(response_schema))
    except jsonschema.ValidationError as exc:
        raise StructuredOutputError(
            f"structured output does not match response_schema: {exc.message}"
        ) from exc
    return data


def parse_output(
    response_schema: ResponseSchema, data: dict[str, Any]
) -> BaseModel | dict[str, Any]:
    """The structured output as the schema's model (or the checked dict for a JSON schema)."""
    if isinstance(response_schema, type):
        return response_schema.model_validate(data)
    return validate_output(response_schema, data)
