"""The base of the wire format: `to_wire`, the version-skew rule, acknowledgements, errors."""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from openhands.sdk.secret.secrets import dump_with_secrets
from openhands.sdk.utils.skew import READING_WIRE_BODY
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

logger = logging.getLogger("openhands.sdk.wire")

WIRE = ConfigDict(defer_build=True)
"""The config of answer models."""

_REQUEST = ConfigDict(defer_build=True, extra="forbid")

# Set while a body is validated, so nested wire models leave skew to the outermost one.
_IN_REQUEST = READING_WIRE_BODY


def to_wire(model: BaseModel) -> dict[str, Any]:
    """The JSON body for a request model, secrets included (they go to a server you trust)."""
    return dump_with_secrets(model)


# -- version skew -----------------------------------------------------------------------------


class WireModel(BaseModel):
    """Base of every wire model; the version-skew rule lives here and nowhere else.

    A client of another version (older, newer, or the reference SDK's) may send fields this
    SDK does not know, at any depth (`agent.llm.stream_idle_timeout`, `agent.critic`, ...).
    They are dropped, with one log line naming them all, and the rest is validated as usual:
    never a 422 for them. A field this SDK knows but does not support yet is listed in
    `UNSUPPORTED`; sent with a value (anything but null, false or empty) it is refused with a
    422 that says so, rather than silently doing less than asked. Anything else wrong is a
    422 naming the field, as always.
    """

    model_config = _REQUEST

    UNSUPPORTED: ClassVar[Mapping[str, str]] = {}
    """Dotted path (list indices and union tags left out) -> what to do instead."""

    SKEW_LOG_LEVEL: ClassVar[int] = logging.INFO
    """How loudly dropped fields are logged (answers, read on every call, log at DEBUG)."""

    @model_validator(mode="wrap")
    @classmethod
    def _version_skew(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if _IN_REQUEST.get() or not isinstance(data, dict):
            return handler(data)  # a nested request model: the outermost one decides
        token = _IN_REQUEST.set(True)
        try:
            try:
                return handler(data)
            except ValidationError as exc:
                cleaned, dropped = _without_unknown_fields(data, exc)
                if not dropped:
                    raise
            refused = [
                InitErrorDetails(
                    type=PydanticCustomError(
                        "unsupported_field",
                        "{field} is known but not supported by this server yet: {hint}",
                        {"field": path, "hint": cls.UNSUPPORTED[path]},
                    ),
                    loc=tuple(path.split(".")),
                    input=None,  # never echo a value back: it may be a secret
                )
                for path, value in dropped.items()
                if path in cls.UNSUPPORTED and value not in (None, False, "", [], {})
            ]
            if refused:
                raise ValidationError.from_exception_data(cls.__name__, refused)
            logger.log(
                cls.SKEW_LOG_LEVEL,
                "%s: ignoring fields this SDK does not know (sent by another version): %s",
                cls.__name__,
                ", ".join(sorted(dropped)),
            )
            return handler(cleaned)
        finally:
            _IN_REQUEST.reset(token)


class WireRequest(WireModel):
    """A request body: what a client of any version sends is read by `WireModel`'s rule."""


class WireAnswer(WireModel):
    """An answer body: a server of another version may send more; the extra is dropped."""

    SKEW_LOG_LEVEL: ClassVar[int] = logging.DEBUG


def _without_unknown_fields(
    data: dict[str, Any], exc: ValidationError
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A copy of `data` without the fields `exc` calls extra, and those fields by path."""
    cleaned = copy.deepcopy(data)
    dropped: dict[str, Any] = {}
    for error in exc.errors():
        if error["type"] != "extra_forbidden":
            continue
        found = _locate(cleaned, error["loc"])
        if found is not None:
            parent, key, path = found
            dropped[path] = parent.pop(key)
    return cleaned, dropped


def _locate(data: Any, loc: tuple[str | int, ...]) -> tuple[dict[str, Any], str, str] | None:
    """The dict holding the field at `loc`, its key and its dotted path; None if `loc` runs
    through a union member the data is not (that member's complaint is not about the data)."""
    node = data
    names: list[str] = []
    *steps, last = loc
    for step in steps:
        if isinstance(node, dict) and isinstance(step, str) and step in node:
            node = node[step]
            names.append(step)
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        elif isinstance(node, dict) and step in (node.get("kind"), node.get("type")):
            continue  # the tag of the union member this data names
        else:
            return None
    if isinstance(node, dict) and isinstance(last, str) and last in node:
        return node, last, ".".join([*names, last])
    return None


# -- acknowledgements and errors ------------------------------------------------------------


class Success(BaseModel):
    """The answer of a call that only acknowledges: `{"success": true}`."""

    model_config = WIRE

    success: Literal[True] = True


class ErrorDetail(BaseModel):
    """One problem with a request: where it is (`loc`) and what is wrong (`msg`)."""

    model_config = WIRE

    loc: list[str | int] = Field(description="Path to the bad field, e.g. ['body', 'objective'].")
    msg: str = Field(description="What is wrong and how to fix it.")
    type: str = Field(description="A machine-readable error type.")


class ErrorResponse(BaseModel):
    """The body of every error answer: a readable `message` plus the detail."""

    model_config = WIRE

    message: str = Field(description="One line naming the field (if any) and the problem.")
    detail: str | list[ErrorDetail] = Field(
        description="A stable error code (e.g. 'no_resumable_goal'), the message again, or "
        "one entry per bad field."
    )
