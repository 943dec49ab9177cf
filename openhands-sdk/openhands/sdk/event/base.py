"""The `Event` base class: every event has an id, a timestamp, a source and a `kind`."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal

from openhands.sdk.llm.message import Message
from pydantic import BaseModel, ConfigDict, Field

EventSource = Literal["agent", "user", "environment", "hook"]


def _new_event_id() -> str:
    return uuid.uuid4().hex


def _now() -> datetime:
    return datetime.now(UTC)


class UnknownEventKindError(ValueError):
    """A serialized event names a `kind` that no Event class declares."""


class Event(BaseModel):
    """Something that happened in a conversation; serialized as JSON with a `kind` field.

    `Event.model_validate_json(text)` returns an instance of the class that `kind` names.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    _registry: ClassVar[dict[str, type[Event]]] = {}

    kind: str = ""
    id: str = Field(default_factory=_new_event_id)
    timestamp: datetime = Field(default_factory=_now)
    source: EventSource = "environment"

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        Event._registry[cls.__name__] = cls

    def model_post_init(self, __context: Any) -> None:
        # `kind` is the concrete class name; it is what JSON readers dispatch on.
        object.__setattr__(self, "kind", type(self).__name__)

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """Validate `obj`, dispatching on its `kind` when called on a base class."""
        if isinstance(obj, dict) and cls._is_dispatching_base():
            target = cls._class_for(obj.get("kind"))
            if target is not cls:
                return target.model_validate(obj, **kwargs)
        return super().model_validate(obj, **kwargs)

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **kwargs: Any) -> Any:  # type: ignore[override]
        """Parse JSON, dispatching on its `kind` when called on a base class."""
        if cls._is_dispatching_base():
            import json

            return cls.model_validate(json.loads(json_data), **kwargs)
        return super().model_validate_json(json_data, **kwargs)

    @classmethod
    def _is_dispatching_base(cls) -> bool:
        return cls is Event or cls.__name__ == "LLMConvertibleEvent"

    @classmethod
    def _class_for(cls, kind: Any) -> type[Event]:
        if not isinstance(kind, str) or kind not in Event._registry:
            known = ", ".join(sorted(Event._registry))
            raise UnknownEventKindError(f"Unknown event kind {kind!r}; expected one of: {known}")
        return Event._registry[kind]

    @classmethod
    def kinds(cls) -> list[str]:
        """The names of every registered event class."""
        return sorted(Event._registry)


class LLMConvertibleEvent(Event):
    """An event that becomes part of the LLM's message history."""

    def to_llm_message(self) -> Message:
        """The chat message this event contributes to the LLM context."""
        raise NotImplementedError
