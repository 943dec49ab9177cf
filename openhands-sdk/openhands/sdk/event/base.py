"""The `Event` base class: every event has an id, a timestamp, a source and a `kind`."""

from __future__ import annotations

import inspect
import json
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, ClassVar, Literal

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.event.to_messages import HistoryRole, events_to_messages
from openhands.sdk.llm.message import Message
from pydantic import BaseModel, ConfigDict, Field

EventSource = Literal["agent", "user", "environment", "hook"]

ROOT_PARENT_ID = "__root__"
"""The `parent_id` of an event that starts a new root after `navigate_to(None)` (no event may
have this id). An event whose `parent_id` is None is the first event, or one written before
events had parents: its parent is the previous event of the log that is not a state update."""


def _new_event_id() -> str:
    return uuid.uuid4().hex


def _now() -> datetime:
    return datetime.now(UTC)


_KIND_PREFIX = '{"kind":"'
_KIND_PREFIX_BYTES = _KIND_PREFIX.encode()
_KIND_START = len(_KIND_PREFIX)


def _leading_kind(json_data: str | bytes | bytearray) -> str | None:
    """The `kind` of JSON written by `model_dump_json` (it starts `{"kind":"Name",`), else None."""
    if isinstance(json_data, str):
        if not json_data.startswith(_KIND_PREFIX):
            return None
        end = json_data.find('"', _KIND_START)
        return json_data[_KIND_START:end] if end > 0 else None
    if not json_data.startswith(_KIND_PREFIX_BYTES):
        return None
    end = json_data.find(b'"', _KIND_START)
    return json_data[_KIND_START:end].decode() if end > 0 else None


class UnknownEventKindError(OpenHandsError, ValueError):
    """A serialized event names a `kind` that no Event class declares."""


class Event(BaseModel):
    """Something that happened in a conversation; serialized as JSON with a `kind` field.

    `Event.model_validate_json(text)` returns an instance of the class that `kind` names.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    _registry: ClassVar[dict[str, type[Event]]] = {}
    history_role: ClassVar[HistoryRole | None] = None
    """The part events of this kind play in the LLM's message history (None: none)."""

    kind: str = "Event"
    id: str = Field(default_factory=_new_event_id)
    timestamp: datetime = Field(default_factory=_now)
    source: EventSource = "environment"
    parent_id: str | None = Field(
        default=None,
        description="The event this one follows in the conversation tree (set when it is "
        "appended; events sharing a parent are sibling branches). See ROOT_PARENT_ID.",
    )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # This runs while the class is created, before pydantic collects its fields: pin
        # `kind` to the class name (a Literal with that default), so JSON readers can dispatch
        # on it and no instance pays for setting it.
        annotations = dict(inspect.get_annotations(cls))
        annotations["kind"] = Literal[cls.__name__]  # type: ignore[valid-type]
        cls.__annotations__ = annotations
        setattr(cls, "kind", cls.__name__)  # noqa: B010  (a field default, not an attribute)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        Event._registry[cls.__name__] = cls

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """Validate `obj`, dispatching on its `kind` when called on a base class."""
        if isinstance(obj, dict) and cls._is_dispatching_base():
            target = cls._class_for(obj.get("kind"))
            if not issubclass(target, cls):
                raise UnknownEventKindError(
                    f"Event kind {obj.get('kind')!r} is not a {cls.__name__}"
                )
            if target is not cls:
                return target.model_validate(obj, **kwargs)
        return super().model_validate(obj, **kwargs)

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **kwargs: Any) -> Any:  # type: ignore[override]
        """Parse JSON, dispatching on its `kind` when called on a base class."""
        if not cls._is_dispatching_base():
            return super().model_validate_json(json_data, **kwargs)
        kind = _leading_kind(json_data)
        if kind is None:
            # Not in our own `{"kind":"...",` layout: parse it generically.
            return cls.model_validate(json.loads(json_data), **kwargs)
        target = cls._class_for(kind)
        if not issubclass(target, cls):
            raise UnknownEventKindError(f"Event kind {kind!r} is not a {cls.__name__}")
        if target is cls or kwargs:
            return super(Event, target).model_validate_json(json_data, **kwargs)
        return target.__pydantic_validator__.validate_json(json_data)

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


def event_from_json(json_data: str | bytes | bytearray) -> Event:
    """Parse one serialized event of any kind (the fast path used when a log is reloaded).

    Raises ValueError (a pydantic ValidationError, a JSON error or UnknownEventKindError).
    """
    kind = _leading_kind(json_data)
    if kind is None:
        return Event.model_validate_json(json_data)
    # One pass through pydantic-core's JSON parser, no Python layers in between.
    return Event._class_for(kind).__pydantic_validator__.validate_json(json_data)


class LLMConvertibleEvent(Event):
    """An event that becomes part of the LLM's message history."""

    def to_llm_message(self) -> Message:
        """The chat message this event contributes to the LLM context."""
        raise NotImplementedError

    history_role: ClassVar[HistoryRole | None] = "message"

    @staticmethod
    def events_to_messages(events: Iterable[Event]) -> list[Message]:
        """The LLM message list for `events` (see `openhands.sdk.event.to_messages`)."""
        return events_to_messages(events)
