"""`Observation`: content parts, `text`, what the LLM reads, and kinds for stored events."""

from __future__ import annotations

import os

from openhands.sdk.llm import ImageContent, TextContent
from openhands.sdk.tool import Action, Observation, UnknownAction, UnknownObservation
from openhands.sdk.tool.stored import action_from_data, observation_from_data


class ProbeObservation(Observation):
    """An observation with a typed field."""

    status: int = 0


class ProbeAction(Action):
    """Arguments with a typed field."""

    target: str


def test_a_string_becomes_one_text_part() -> None:
    observation = Observation(content="hello")  # type: ignore[arg-type]

    assert observation.content == [TextContent(text="hello")]
    assert observation.text == "hello"


def test_text_joins_the_text_parts_and_skips_images() -> None:
    observation = Observation(
        content=[TextContent(text="a"), ImageContent(image_urls=["u"]), TextContent(text="b")]
    )

    assert observation.text == "ab"


def test_an_error_reads_with_a_header_line() -> None:
    observation = Observation.from_text("disk full", is_error=True)

    assert [part.text for part in observation.to_llm_content if isinstance(part, TextContent)] == [
        Observation.ERROR_MESSAGE_HEADER,
        "disk full",
    ]


def test_undecodable_bytes_in_content_are_replaced() -> None:
    observation = Observation.from_text(os.fsdecode(b"caf\xe9"))

    assert observation.text == "caf\ufffd"


def test_stored_data_with_a_kind_comes_back_typed() -> None:
    observation = observation_from_data({"kind": "ProbeObservation", "content": "x", "status": 3})
    action = action_from_data({"kind": "ProbeAction", "target": "db"})

    assert isinstance(observation, ProbeObservation) and observation.status == 3
    assert isinstance(action, ProbeAction) and action.target == "db"


def test_an_unknown_kind_keeps_every_field() -> None:
    observation = observation_from_data(
        {"kind": "GoneObservation", "content": [{"type": "text", "text": "x"}], "rows": 5}
    )

    assert isinstance(observation, UnknownObservation)
    assert observation.text == "x"
    assert observation.model_dump()["rows"] == 5


def test_data_that_no_longer_fits_its_class_is_kept_generically() -> None:
    action = action_from_data({"kind": "ProbeAction", "target": "db", "retired_field": 1})

    assert isinstance(action, UnknownAction)
    assert action.model_dump() == {"target": "db", "retired_field": 1}
