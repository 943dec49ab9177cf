"""Actions and observations as they are stored: dumped with their `kind`, read back into
their class.

A kind no loaded class declares first makes the SDK load the tool packages declared as entry
points (once); if it is still unknown, or the stored fields no longer fit the class, the data
loads into a generic `UnknownAction` / `UnknownObservation` (`openhands.sdk.tool.unknown`,
defined on first use) that keeps every field and re-serializes unchanged.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.tool.entry_points import import_declared_tools
from openhands.sdk.tool.schema import Action, Observation
from pydantic import BaseModel, ValidationError

__all__ = [
    "action_from_data",
    "dump_with_kind",
    "find_kind",
    "kind_of",
    "observation_from_data",
]

logger = logging.getLogger(__name__)

SchemaT = TypeVar("SchemaT", bound="Action | Observation")


def kind_of(value: BaseModel) -> str | None:
    """The kind `value` is stored under: its class name, or the kind it was read with (None
    for data stored without one)."""
    if getattr(type(value), "stores_kind", False):
        return value._kind  # type: ignore[attr-defined]
    return type(value).__name__


def dump_with_kind(value: BaseModel, mode: str = "json") -> dict[str, Any]:
    """`value` as a dict whose first key is its `kind` (if it has one)."""
    kind = kind_of(value)
    fields = value.model_dump(mode=mode)
    return fields if kind is None else {"kind": kind, **fields}


_entry_points_loaded = False


def find_kind(base: type[SchemaT], kind: str) -> type[SchemaT] | None:
    """The loaded subclass of `base` named `kind` (loading the tool packages that declare
    entry points, once, if none is), or None."""
    global _entry_points_loaded
    found = base.kind_class(kind)
    if found is None and not _entry_points_loaded:
        _entry_points_loaded = True
        import_declared_tools()
        found = base.kind_class(kind)
    return found


def _from_data(base: type[SchemaT], unknown_name: str, data: Any) -> SchemaT:
    if type(data) is not dict:
        if isinstance(data, base):
            return data
        if isinstance(data, BaseModel):
            data = data.model_dump()
        if not isinstance(data, dict):
            raise InvalidArgumentError(
                f"expected an object for a {base.__name__}, got {type(data).__name__}"
            )
    fields = dict(data)
    kind = fields.pop("kind", None)
    cls = find_kind(base, kind) if isinstance(kind, str) else None
    if cls is not None:
        try:
            return cls.__pydantic_validator__.validate_python(fields)
        except ValidationError as exc:
            unset = _unset_extras(fields, exc)
            if unset:
                # Another version's field left at its empty default (the reference's
                # `TerminalAction.reset=false`): it asks for nothing, so the class still fits.
                kept = {name: value for name, value in fields.items() if name not in unset}
                try:
                    return cls.__pydantic_validator__.validate_python(kept)
                except ValidationError:
                    pass
            logger.warning(
                "Stored %s %r no longer fits its class (%s); keeping it as %s",
                base.__name__,
                kind,
                exc.error_count(),
                unknown_name,
            )
    from openhands.sdk.tool import unknown

    generic = getattr(unknown, unknown_name).model_validate(fields)
    generic._kind = kind if isinstance(kind, str) and kind else None  # type: ignore[attr-defined]
    return generic


def _unset_extras(fields: dict[str, Any], exc: ValidationError) -> set[str]:
    """The top-level fields `exc` calls extra when all its errors are such fields holding an
    empty value (null, false, "", [] or {}); otherwise nothing."""
    names: set[str] = set()
    for error in exc.errors():
        loc = error["loc"]
        if error["type"] != "extra_forbidden" or len(loc) != 1 or not isinstance(loc[0], str):
            return set()
        if fields.get(loc[0]) not in (None, False, "", [], {}):
            return set()
        names.add(loc[0])
    return names


def action_from_data(data: Any) -> Action:
    """The typed `Action` for stored data (`{"kind": ..., fields}`); see the module doc."""
    return _from_data(Action, "UnknownAction", data)


def observation_from_data(data: Any) -> Observation:
    """The typed `Observation` for stored data (`{"kind": ..., fields}`); see the module doc."""
    return _from_data(Observation, "UnknownObservation", data)
