"""`Action` (a tool call's validated arguments) and `Observation` (a tool's result).

Both are pydantic models; every subclass registers itself by class name (its *kind*), so an
event that stores one as `{"kind": "TerminalObservation", ...}` gets the typed object back
when it is read (`openhands.sdk.tool.stored`).
"""

from __future__ import annotations

import logging
import threading
from typing import Any, ClassVar, Self

from openhands.sdk.llm.message import (
    LONE_SURROGATE,
    ImageContent,
    TextContent,
    scrub_surrogates,
)
from openhands.sdk.utils.lazy import lazy_exports
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

__all__ = ["Action", "Observation"]

logger = logging.getLogger(__name__)

_registry_lock = threading.Lock()


class _KindRegistry:
    """Mixed into `Action` and `Observation`: each subclass registers by class name.

    A plain mixin rather than a common pydantic base: every model class costs import time.
    """

    _kinds: ClassVar[dict[str, type[Any]]]
    stores_kind: ClassVar[bool] = False
    """True for the generic classes that keep the kind they were read with."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)  # type: ignore[misc]
        root = _root(cls)
        if root is not None and not cls.stores_kind:
            with _registry_lock:
                root._kinds[cls.__name__] = cls

    @classmethod
    def kind_class(cls, kind: str) -> type[Self] | None:
        """The loaded subclass named `kind`, or None."""
        found = cls._kinds.get(kind)  # the root's registry; reads need no lock
        return found if found is not None and cls in found.__mro__ else None  # type: ignore[return-value]


def _root(cls: type) -> type[_KindRegistry] | None:
    """The nearest class that keeps a kind registry (`Action` or `Observation`)."""
    for base in cls.__mro__:
        if "_kinds" in base.__dict__:
            return base
    return None


class Action(_KindRegistry, BaseModel):
    """The validated arguments of one tool call; its JSON schema is what the LLM sees."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    _kinds: ClassVar[dict[str, type[Any]]] = {}

    # A field rather than a private attribute: private attributes cost every validation a
    # microsecond. It is never shown to the LLM nor serialized.
    structured_output: SkipJsonSchema[dict[str, Any] | None] = Field(
        default=None,
        exclude=True,
        repr=False,
        description="The `response_schema` fields the LLM filled in, if the tool has one.",
    )


class Observation(_KindRegistry, BaseModel):
    """What a tool returns: `content` parts for the LLM, and whether it is an error.

    Subclasses add typed fields (exit codes, paths...) and may override `to_llm_content` to
    render them. `text` joins the text parts. A plain string is accepted for `content`.
    """

    model_config = ConfigDict(defer_build=True)

    ERROR_MESSAGE_HEADER: ClassVar[str] = "[An error occurred during execution.]\n"

    _kinds: ClassVar[dict[str, type[Any]]] = {}

    content: list[TextContent | ImageContent] = Field(
        default_factory=list, description="What the tool returned, as text and image parts."
    )
    is_error: bool = Field(default=False, description="Whether the tool call failed.")

    @field_validator("content", mode="before")
    @classmethod
    def _content_parts(cls, value: Any) -> Any:
        # Undecodable file names and bytes reach Python as lone surrogates, which JSON cannot
        # encode: one such character would make the event unwritable and fail the whole run.
        # Text made in Python is cleaned here; parts read back from JSON are dicts and clean.
        if value is None:
            return []
        if isinstance(value, str):
            return [TextContent(text=scrub_surrogates(value))] if value else []
        if isinstance(value, list) and any(
            type(part) is TextContent and LONE_SURROGATE.search(part.text) for part in value
        ):
            return [
                TextContent(text=scrub_surrogates(part.text)) if type(part) is TextContent else part
                for part in value
            ]
        return value

    @model_validator(mode="after")
    def _encodable_text(self) -> Self:
        # One pass over the fields (not a validator per field): reading a log validates many.
        for name, value in self.__dict__.items():
            if type(value) is str and LONE_SURROGATE.search(value):
                object.__setattr__(self, name, scrub_surrogates(value))
        return self

    @classmethod
    def from_text(cls, text: str, is_error: bool = False, **fields: Any) -> Self:
        """An observation whose content is `text`."""
        return cls(content=[TextContent(text=text)], is_error=is_error, **fields)

    @property
    def text(self) -> str:
        """The text parts of `content`, concatenated."""
        return "".join(part.text for part in self.content if isinstance(part, TextContent))

    @property
    def to_llm_content(self) -> list[TextContent | ImageContent]:
        """The content parts given back to the LLM (an error gets a header line first)."""
        parts: list[TextContent | ImageContent] = []
        if self.is_error:
            parts.append(TextContent(text=self.ERROR_MESSAGE_HEADER))
        parts.extend(self.content)
        return parts


# Reading and writing them by kind moved to `openhands.sdk.tool.stored`; the generic classes
# are defined on first use (`openhands.sdk.tool.unknown`).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "UnknownAction": "openhands.sdk.tool.unknown",
        "UnknownObservation": "openhands.sdk.tool.unknown",
        **dict.fromkeys(
            ("action_from_data", "dump_with_kind", "find_kind", "kind_of", "observation_from_data"),
            "openhands.sdk.tool.stored",
        ),
    },
)
