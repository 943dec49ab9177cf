"""A `ToolDefinition` as JSON, in the reference SDK's shape, and back.

A tool dumps as `{"kind": <class name>, "title", "description", "action_type": <Action class
name>, "observation_type": <Observation class name or null>, "annotations", "meta"}`; its
executor never leaves the process. Reading such JSON through `ToolDefinition` gives the class
its `kind` names (it must be loaded, or declared by an installed package), without an
executor: a tool read back describes itself, and runs once a conversation builds it again.
"""

from __future__ import annotations

from typing import Any

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.tool.schema import Action, Observation, find_kind
from pydantic import BaseModel

# `cls` below is a ToolDefinition class; typed as BaseModel so that this module, which
# tool.py imports, does not import tool.py back (the layer test refuses module loops).

_COMPUTED = ("kind", "title")
"""Keys a dump adds that are not fields: dropped when reading."""


def schema_class(value: Any, base: type[Action] | type[Observation]) -> Any:
    """`value` as a class for `action_type` / `observation_type`: a loaded subclass of
    `base`, given as itself or by its class name. Raises ValueError naming the field."""
    if not isinstance(value, str):
        return value
    if value == base.__name__:
        return base
    found = find_kind(base, value)
    if found is None:
        raise InvalidArgumentError(
            f"{value!r} is not a loaded {base.__name__} class; import the module that "
            "defines it before reading the tool"
        )
    return found


def read_tool(cls: type[BaseModel], data: Any, handler: Any) -> Any:
    """Validate `data` as `cls`, or as the subclass its `kind` names (a ValueError naming
    the kind when it is none of `cls`'s loaded subclasses)."""
    if not isinstance(data, dict) or not any(key in data for key in _COMPUTED):
        return handler(data)
    fields = {key: value for key, value in data.items() if key not in _COMPUTED}
    kind = data.get("kind")
    if not isinstance(kind, str) or kind == cls.__name__:
        return handler(fields)
    target = _subclass_named(cls, kind)
    if target is None:
        raise ValueError(
            f"Unexpected kind {kind!r} for {cls.__name__}: no loaded subclass has that name; "
            "import the module that defines the tool first"
        )
    return target.model_validate(fields)


def _subclass_named(cls: type[BaseModel], name: str) -> type[BaseModel] | None:
    pending = list(cls.__subclasses__())
    while pending:
        candidate = pending.pop()
        if candidate.__name__ == name:
            return candidate
        pending.extend(candidate.__subclasses__())
    return None
