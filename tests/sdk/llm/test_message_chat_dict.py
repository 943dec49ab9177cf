"""`Message.to_chat_dict`: when the content goes as one string or as parts, cache marks."""

from __future__ import annotations

import pytest
from openhands.sdk.llm import LLM, ImageContent, Message, MessageToolCall, TextContent
from openhands.sdk.llm.options import format_chat_messages

FLAGS = ("cache_enabled", "vision_enabled", "function_calling_enabled")


def test_text_goes_as_one_string_when_no_flag_asks_for_parts() -> None:
    message = Message(role="user", content=[TextContent(text="a"), TextContent(text="b")])

    assert message.to_chat_dict() == {"role": "user", "content": "a\nb"}


@pytest.mark.parametrize("flag", FLAGS)
def test_any_of_the_three_flags_sends_the_content_as_parts(flag: str) -> None:
    message = Message(role="user", content=[TextContent(text="a"), TextContent(text="b")])

    chat = message.to_chat_dict(**{flag: True})

    assert chat["content"] == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]


@pytest.mark.parametrize("flag", FLAGS)
def test_force_string_serializer_wins_over_every_flag(flag: str) -> None:
    message = Message(role="user", content=[TextContent(text="a")])

    chat = message.to_chat_dict(force_string_serializer=True, **{flag: True})

    assert chat["content"] == "a"


def test_images_go_only_with_vision_enabled() -> None:
    message = Message(
        role="user",
        content=[TextContent(text="look"), ImageContent(image_urls=["http://x/1.png"])],
    )

    blind = message.to_chat_dict(function_calling_enabled=True)
    seeing = message.to_chat_dict(vision_enabled=True)

    assert blind["content"] == [{"type": "text", "text": "look"}]
    assert seeing["content"][1] == {"type": "image_url", "image_url": {"url": "http://x/1.png"}}


def test_a_part_marked_cache_prompt_carries_cache_control_only_with_caching_on() -> None:
    message = Message(
        role="user",
        content=[TextContent(text="static", cache_prompt=True), TextContent(text="fresh")],
    )

    cached = message.to_chat_dict(cache_enabled=True)
    uncached = message.to_chat_dict(function_calling_enabled=True)

    assert cached["content"] == [
        {"type": "text", "text": "static", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "fresh"},
    ]
    assert all("cache_control" not in part for part in uncached["content"])
    assert message.content[0].cache_prompt is True  # rendering leaves the message alone


def test_cache_prompt_is_read_from_json_and_left_out_of_dumps_while_false() -> None:
    marked = TextContent.model_validate({"type": "text", "text": "x", "cache_prompt": True})
    plain = TextContent.model_validate({"type": "text", "text": "x", "cache_prompt": False})

    assert marked.cache_prompt is True
    assert marked.model_dump()["cache_prompt"] is True
    assert plain.cache_prompt is False
    assert plain.model_dump() == {"type": "text", "text": "x"}


@pytest.mark.parametrize("text", ["", "  \n"])
def test_an_assistant_turn_with_calls_and_blank_text_has_no_content_in_either_form(
    text: str,
) -> None:
    call = MessageToolCall(id="c1", name="terminal", arguments="{}")
    message = Message(role="assistant", content=[TextContent(text=text)], tool_calls=[call])

    assert "content" not in message.to_chat_dict()
    assert "content" not in message.to_chat_dict(function_calling_enabled=True)


def test_an_assistant_turn_with_calls_keeps_its_words_as_parts() -> None:
    call = MessageToolCall(id="c1", name="terminal", arguments="{}")
    message = Message(
        role="assistant",
        content=[TextContent(text=""), TextContent(text="running it")],
        tool_calls=[call],
    )

    chat = message.to_chat_dict(function_calling_enabled=True)

    assert chat["content"] == [{"type": "text", "text": "running it"}]
    assert chat["tool_calls"][0]["id"] == "c1"


def test_the_llm_still_sends_text_turns_as_strings_and_images_as_parts() -> None:
    llm = LLM(model="gpt-4o", capability_overrides={"supports_vision": True})
    messages = [
        Message(role="user", content=[TextContent(text="hi")]),
        Message(
            role="user",
            content=[TextContent(text="see"), ImageContent(image_urls=["http://x/1.png"])],
        ),
    ]

    sent = format_chat_messages(llm, messages)

    assert sent[0]["content"] == "hi"
    assert [part["type"] for part in sent[1]["content"]] == ["text", "image_url"]
