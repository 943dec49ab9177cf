"""`KindedModel`: a family of pydantic models read back by `kind`, as the reference SDK does.

Validating the family's base (`ConfirmationPolicyBase.model_validate_json('{"kind":
"AlwaysConfirm"}')`) builds the subclass that `kind` names, a user's own subclasses
included; every dump carries `kind` (a subclass's `kind` field, else its class name).
"""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)


class KindedModel(BaseModel):
    """The base of a family whose JSON says which member it is in `kind`."""

    model_config = ConfigDict(defer_build=True)

    @classmethod
    def kind_name(cls) -> str:
        """This class's `kind`: its `kind` field's default, else its class name."""
        field = cls.model_fields.get("kind")
        default = field.default if field is not None else None
        return default if isinstance(default, str) and default else cls.__name__

    @classmethod
    def member(cls, kind: str) -> type[KindedModel] | None:
        """The loaded subclass of this class (or this class) whose kind is `kind`."""
        pending: list[type[KindedModel]] = [cls]
        while pending:
            candidate = pending.pop()
            if candidate.kind_name() == kind:
                return candidate
            pending.extend(candidate.__subclasses__())
        return None

    @model_validator(mode="wrap")
    @classmethod
    def _by_kind(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if isinstance(data, dict) and isinstance(data.get("kind"), str):
            target = cls.member(data["kind"])
            if target is None:
                raise ValueError(
                    f"kind {data['kind']!r} is not a {cls.__name__}; define (import) that class "
                    "before reading it"
                )
            if "kind" not in target.model_fields:
                data = {key: value for key, value in data.items() if key != "kind"}
            if target is not cls:
                return target.model_validate(data)
        return handler(data)

    # No return annotation on purpose: pydantic then documents the dump with the model's own
    # schema (an annotation would replace it, in OpenAPI too).
    @model_serializer(mode="wrap")
    def _with_kind(self, handler: SerializerFunctionWrapHandler):
        data = handler(self)
        if isinstance(data, dict) and "kind" not in data:
            data = {**data, "kind": type(self).kind_name()}
        return data
