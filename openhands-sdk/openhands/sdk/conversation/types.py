"""Type names shared by conversations: callbacks, ids, tags and stuck-detection thresholds."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.event.base import Event
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

__all__ = [
    "TAG_VALUE_MAX_LENGTH",
    "ConversationCallbackType",
    "ConversationID",
    "ConversationTags",
    "ConversationTokenCallbackType",
    "StuckDetectionThresholds",
    "compose_token_callbacks",
    "thresholds_from",
    "validate_tags",
]

ConversationCallbackType = Callable[[Event], None]
"""A callback a conversation calls with every event it records (after it is persisted)."""

ConversationTokenCallbackType = Callable[[Any], None]
"""A callback given each streamed chunk of an LLM reply (the LLM's `on_token`)."""

ConversationID = uuid.UUID
"""A conversation's id."""

_TAG_KEY = re.compile(r"^[a-z0-9]+$")
TAG_VALUE_MAX_LENGTH = 256


def validate_tags(value: Any) -> dict[str, str]:
    """Check conversation tags: keys lowercase letters and digits, values at most 256 chars."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidArgumentError("tags must be a mapping of names to strings")
    for key, item in value.items():
        if not isinstance(key, str) or not _TAG_KEY.match(key):
            raise InvalidArgumentError(
                f"tag name {key!r} is invalid: use lowercase letters and digits only"
            )
        if not isinstance(item, str):
            raise InvalidArgumentError(f"tag {key!r} must be a string, got {type(item).__name__}")
        if len(item) > TAG_VALUE_MAX_LENGTH:
            raise InvalidArgumentError(
                f"tag {key!r} is {len(item)} characters long; at most {TAG_VALUE_MAX_LENGTH}"
            )
    return dict(value)


ConversationTags = Annotated[dict[str, str], BeforeValidator(validate_tags)]
"""Key-value labels of a conversation (a fork's title is kept under "title")."""


class StuckDetectionThresholds(BaseModel):
    """How many repetitions of each pattern make a run `stuck` (see `StuckDetector`)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    action_observation: int = Field(
        default=4,  # stuck.REPEATS
        ge=1,
        description="The same tool call with the same result, in a row.",
    )
    action_error: int = Field(
        default=3,
        ge=1,
        description="The same tool call failing with the same error; stuck one past this.",
    )
    monologue: int = Field(
        default=3,
        ge=1,
        description="Agent messages in a row with no user message or tool call between them "
        "(hook and environment feedback, e.g. a denied Stop, does not break the streak).",
    )
    alternating_pattern: int = Field(
        default=6,
        ge=1,
        description="Tool calls alternating between two calls with the same two results.",
    )


def thresholds_from(
    value: StuckDetectionThresholds | Mapping[str, int] | None,
) -> StuckDetectionThresholds:
    """`stuck_detection_thresholds=` as a model: a model, a mapping of its fields, or None."""
    if value is None:
        return StuckDetectionThresholds()
    if isinstance(value, StuckDetectionThresholds):
        return value
    return StuckDetectionThresholds.model_validate(dict(value))


def compose_token_callbacks(
    callbacks: Sequence[ConversationTokenCallbackType] | None,
) -> ConversationTokenCallbackType | None:
    """One token callback calling each of `callbacks` in order (None when there are none)."""
    chain = list(callbacks or ())
    if not chain:
        return None
    if len(chain) == 1:
        return chain[0]

    def on_token(chunk: Any) -> None:
        for callback in chain:
            callback(chunk)

    return on_token
