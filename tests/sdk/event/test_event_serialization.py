"""Events serialize as JSON with a `kind` discriminator and round-trip through `Event`."""

from __future__ import annotations

import json

import pytest
from openhands.sdk.event import (
    ActionEvent,
    AgentErrorEvent,
    Condensation,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    Event,
    HookExecutionEvent,
    InterruptEvent,
    LLMConvertibleEvent,
    MessageEvent,
    ObservationEvent,
    PauseEvent,
    SystemPromptEvent,
    UnknownEventKindError,
    UserRejectObservation,
)
from openhands.sdk.event.base import event_from_json
from openhands.sdk.llm import ImageContent, Message, MessageToolCall, TextContent
from openhands.sdk.tool import Observation
from openhands.sdk.tool.stored import action_from_data
from pydantic import ValidationError

CALL = MessageToolCall(id="call_1", name="echo", arguments='{"text": "hi"}')

SAMPLES: list[Event] = [
    Condensation(summary="made x.py", summary_offset=2, forgotten_messages=6),
    SystemPromptEvent(
        system_prompt=TextContent(text="You are helpful."),
        tools=[{"type": "function", "function": {"name": "think", "parameters": {}}}],
    ),
    MessageEvent(
        source="user",
        llm_message=Message(
            role="user",
            content=[
                TextContent(text="look"),
                ImageContent(image_urls=["data:image/png;base64,AA"]),
            ],
        ),
    ),
    ActionEvent(
        thought=[TextContent(text="let me echo")],
        tool_name="echo",
        tool_call_id="call_1",
        tool_call=CALL,
        action=action_from_data({"text": "hi", "times": 1}),
        llm_response_id="resp_1",
    ),
    ObservationEvent(
        tool_name="echo",
        tool_call_id="call_1",
        action_id="a1",
        observation=Observation.from_text("hi"),
    ),
    AgentErrorEvent(tool_name="echo", tool_call_id="call_1", error="bad arguments"),
    UserRejectObservation(
        source="hook",
        tool_name="echo",
        tool_call_id="call_1",
        action_id="a1",
        rejection_reason="no",
    ),
    PauseEvent(),
    InterruptEvent(parent_id="0f" * 16),
    ConversationErrorEvent(code="LLMError", detail="the provider is down"),
    ConversationStateUpdateEvent(key="goal", value={"status": "running", "iteration": 2}),
    HookExecutionEvent(
        hook_event_type="PreToolUse",
        hook_command="./check.sh",
        tool_name="echo",
        success=True,
        blocked=True,
        exit_code=2,
        reason="not allowed",
        action_id="a1",
        hook_input={"tool_name": "echo", "tool_input": {"text": "hi"}},
    ),
]


def test_samples_cover_every_sdk_event_kind() -> None:
    sampled = {type(event).__name__ for event in SAMPLES}
    sdk_kinds = {
        kind
        for kind in Event.kinds()
        if Event._registry[kind].__module__.startswith("openhands.sdk.event.")
    }

    missing = sdk_kinds - sampled - {"LLMConvertibleEvent"}

    assert not missing, f"add a sample for {sorted(missing)}"


@pytest.mark.parametrize("event", SAMPLES, ids=lambda event: type(event).__name__)
def test_every_kind_round_trips_through_the_base_class(event: Event) -> None:
    text = event.model_dump_json()

    restored = Event.model_validate_json(text)

    assert type(restored) is type(event)
    assert restored == event


@pytest.mark.parametrize("event", SAMPLES, ids=lambda event: type(event).__name__)
def test_kind_is_the_class_name_and_comes_first(event: Event) -> None:
    data = json.loads(event.model_dump_json())

    assert data["kind"] == type(event).__name__
    assert next(iter(data)) == "kind"


@pytest.mark.parametrize("event", SAMPLES, ids=lambda event: type(event).__name__)
def test_dict_input_dispatches_on_kind(event: Event) -> None:
    restored = Event.model_validate(event.model_dump(mode="json"))

    assert restored == event


def test_json_in_another_layout_still_dispatches() -> None:
    event = PauseEvent()
    data = event.model_dump(mode="json")
    reordered = json.dumps({"id": data["id"], **data}, indent=2)  # `kind` no longer first

    assert Event.model_validate_json(reordered) == event


def test_unknown_kind_names_the_known_kinds() -> None:
    with pytest.raises(UnknownEventKindError, match="PauseEvent"):
        Event.model_validate_json('{"kind":"NoSuchEvent","id":"x"}')


def test_missing_kind_is_rejected() -> None:
    with pytest.raises(UnknownEventKindError):
        Event.model_validate({"id": "x"})


def test_llm_convertible_base_rejects_a_non_llm_kind() -> None:
    with pytest.raises(ValueError, match="not a LLMConvertibleEvent"):
        LLMConvertibleEvent.model_validate_json(PauseEvent().model_dump_json())


def test_llm_convertible_base_parses_an_llm_kind() -> None:
    event = AgentErrorEvent(tool_name="t", tool_call_id="c", error="e")

    assert LLMConvertibleEvent.model_validate_json(event.model_dump_json()) == event


def test_a_concrete_class_rejects_another_kind() -> None:
    with pytest.raises(ValidationError, match="PauseEvent"):
        PauseEvent.model_validate({"kind": "MessageEvent"})


def test_unknown_fields_are_rejected() -> None:
    data = PauseEvent().model_dump(mode="json") | {"surprise": 1}

    with pytest.raises(ValidationError, match="surprise"):
        Event.model_validate(data)


def test_events_are_immutable() -> None:
    event = PauseEvent()

    with pytest.raises(ValidationError):
        event.source = "agent"  # type: ignore[misc]


def test_a_new_event_subclass_is_registered_with_its_own_kind() -> None:
    class CustomNoteEvent(Event):
        note: str

    try:
        restored = Event.model_validate_json(CustomNoteEvent(note="n").model_dump_json())
    finally:
        Event._registry.pop("CustomNoteEvent", None)

    assert isinstance(restored, CustomNoteEvent)
    assert restored.kind == "CustomNoteEvent"
    assert restored.note == "n"


def test_event_from_json_parses_bytes() -> None:
    event = ConversationErrorEvent(code="c", detail="d")

    assert event_from_json(event.model_dump_json().encode()) == event


def test_source_must_be_a_known_source() -> None:
    with pytest.raises(ValidationError, match="source"):
        PauseEvent(source="robot")  # type: ignore[arg-type]
