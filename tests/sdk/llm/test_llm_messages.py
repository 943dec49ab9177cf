"""Message shapes: reasoning and thinking blocks, prompt-cache marks, the Responses API."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from openhands.sdk.llm import (
    LLM,
    ImageContent,
    Message,
    MessageToolCall,
    ReasoningItemModel,
    RedactedThinkingBlock,
    TextContent,
    ThinkingBlock,
    content_to_str,
    text_message,
)
from openhands.sdk.llm.llm import _import_litellm
from openhands.sdk.llm.options import chat_params
from openhands.sdk.llm.responses_api import parse_responses_output

CONVERSATION = [
    text_message("system", "You are terse."),
    text_message("user", "list files"),
    Message(
        role="assistant",
        content=[TextContent(text="running ls")],
        tool_calls=[MessageToolCall(id="call_1", name="terminal", arguments='{"command":"ls"}')],
    ),
    Message(
        role="tool", content=[TextContent(text="a.txt")], tool_call_id="call_1", name="terminal"
    ),
]


def test_content_to_str_shows_text_and_counts_images() -> None:
    parts = [TextContent(text="look"), ImageContent(image_urls=["u1", "u2"])]

    assert content_to_str(parts) == ["look", "[Image: 2 URLs]"]


def test_a_plain_string_is_accepted_as_message_content() -> None:
    assert Message(role="user", content="hello").content == [TextContent(text="hello")]  # type: ignore[arg-type]


def test_reasoning_and_thinking_blocks_are_read_from_the_provider_message() -> None:
    litellm = _import_litellm()
    raw = litellm.ModelResponse(
        choices=[
            {
                "message": {
                    "role": "assistant",
                    "content": "done",
                    "reasoning_content": "first I think",
                    "thinking_blocks": [
                        {"type": "thinking", "thinking": "first I think", "signature": "sig"},
                        {"type": "redacted_thinking", "data": "xyz"},
                    ],
                }
            }
        ]
    )

    message = Message.from_llm_chat_message(raw.choices[0].message)  # type: ignore[union-attr]

    assert message.reasoning_content == "first I think"
    assert message.thinking_blocks == [
        ThinkingBlock(thinking="first I think", signature="sig"),
        RedactedThinkingBlock(data="xyz"),
    ]


def test_thinking_blocks_go_back_with_their_assistant_turn() -> None:
    message = Message(
        role="assistant",
        content=[TextContent(text="ok")],
        thinking_blocks=[ThinkingBlock(thinking="hmm", signature="s")],
    )

    chat = message.to_chat_dict()

    assert chat["thinking_blocks"] == [{"type": "thinking", "thinking": "hmm", "signature": "s"}]


def test_a_plain_message_serializes_without_the_reasoning_fields() -> None:
    assert text_message("user", "hi").model_dump(mode="json") == {
        "role": "user",
        "content": [{"type": "text", "text": "hi"}],
        "tool_calls": None,
        "tool_call_id": None,
        "name": None,
    }


def test_claude_prompts_get_cache_marks_on_the_system_and_latest_turn() -> None:
    llm = LLM(model="anthropic/claude-sonnet-4-5-20250929")

    chat = llm.format_messages_for_llm(CONVERSATION)

    marked = [
        i
        for i, m in enumerate(chat)
        if isinstance(m["content"], list) and m["content"][-1].get("cache_control")
    ]
    assert marked == [0, 3]


def test_no_cache_marks_when_caching_is_off_or_not_needed() -> None:
    for llm in (
        LLM(model="anthropic/claude-sonnet-4-5-20250929", caching_prompt=False),
        LLM(model="openai/gpt-4o"),
    ):
        chat = llm.format_messages_for_llm(CONVERSATION)
        assert all(isinstance(m["content"], str) for m in chat), llm.model


def test_extended_thinking_for_claude_sets_a_budget_below_the_output_cap() -> None:
    llm = LLM(
        model="anthropic/claude-sonnet-4-5-20250929",
        extended_thinking_budget=200_000,
        max_output_tokens=8000,
        temperature=0.3,
    )

    params = chat_params(llm, stream=False)

    assert params["thinking"] == {"type": "enabled", "budget_tokens": 7999}
    assert params["max_tokens"] == 8000
    assert "temperature" not in params
    assert "interleaved-thinking" in params["extra_headers"]["anthropic-beta"]


def test_openrouter_models_get_the_attribution_headers() -> None:
    params = chat_params(LLM(model="openrouter/some/model"), stream=False)

    assert params["extra_headers"]["X-Title"] == "OpenHands"
    assert "X-Title" not in chat_params(LLM(model="openai/x"), stream=False).get(
        "extra_headers", {}
    )


def test_aws_settings_go_to_litellm() -> None:
    llm = LLM(
        model="bedrock/anthropic.claude-3",
        aws_access_key_id="AKIA",  # type: ignore[arg-type]
        aws_secret_access_key="sekrit-value-123",  # type: ignore[arg-type]
        aws_region_name="eu-west-1",
    )

    params = chat_params(llm, stream=False)

    assert (params["aws_access_key_id"], params["aws_secret_access_key"]) == (
        "AKIA",
        "sekrit-value-123",
    )
    assert params["aws_region_name"] == "eu-west-1"
    assert "sekrit-value-123" not in llm.model_dump_json()


def test_messages_format_for_the_responses_api() -> None:
    llm = LLM(model="openai/gpt-5", api_mode="responses")

    instructions, items = llm.format_messages_for_responses(CONVERSATION)

    assert llm.uses_responses_api()
    assert instructions == "You are terse."
    assert [item["type"] for item in items] == [
        "message",
        "message",
        "function_call",
        "function_call_output",
    ]
    assert items[2]["call_id"] == "call_1" and items[3]["output"] == "a.txt"


def test_a_responses_answer_becomes_an_assistant_message() -> None:
    raw: dict[str, Any] = {
        "id": "resp_1",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [{"text": "plan"}]},
            {"type": "message", "content": [{"type": "output_text", "text": "calling"}]},
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_9",
                "name": "terminal",
                "arguments": '{"command": "ls"}',
            },
        ],
        "usage": {"input_tokens": 12, "output_tokens": 3},
    }

    response = parse_responses_output(LLM(model="openai/x"), raw, _import_litellm())

    message = response.message
    assert message.text == "calling"
    assert message.tool_calls is not None and message.tool_calls[0].id == "call_9"
    assert message.tool_calls[0].to_responses_dict()["id"] == "fc_1"
    assert message.responses_reasoning_item == ReasoningItemModel(id="rs_1", summary=["plan"])
    assert (response.prompt_tokens, response.completion_tokens) == (12, 3)


def test_chat_completions_is_the_default_api() -> None:
    assert not LLM(model="openai/agent-x").uses_responses_api()


def test_a_responses_function_call_item_becomes_a_tool_call_replayed_unchanged() -> None:
    item = {
        "type": "function_call",
        "id": "fc_abc",
        "call_id": "call_xyz",
        "name": "terminal",
        "arguments": '{"command": "ls"}',
        "status": "completed",
    }

    call = MessageToolCall.from_responses_function_call(item)

    assert (call.id, call.responses_item_id, call.origin) == ("call_xyz", "fc_abc", "responses")
    assert call.to_responses_dict() == {key: item[key] for key in item if key != "status"}
    only_id = MessageToolCall.from_responses_function_call({"id": "fc_1", "name": "think"})
    assert (only_id.id, only_id.arguments) == ("fc_1", "{}")


@pytest.mark.parametrize(
    ("item", "problem"),
    [({"name": "terminal"}, "missing call_id/id"), ({"call_id": "c1", "name": ""}, "missing name")],
)
def test_a_responses_function_call_without_an_id_or_name_is_refused(
    item: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        MessageToolCall.from_responses_function_call(item)


def test_dict_arguments_are_sent_as_json_text() -> None:
    call = MessageToolCall.model_construct(
        id="5", name="do", arguments={"a": 1}, origin="responses"
    )

    assert call.to_responses_dict()["arguments"] == '{"a": 1}'
    assert call.to_responses_dict()["id"] == "fc_5"


@pytest.mark.parametrize(
    ("tool_call", "problem"),
    [
        ({"id": "x", "type": "custom", "function": {"name": "n"}}, "Unsupported tool call type"),
        ({"id": "x", "type": "function", "function": None}, "tool_call.function is None"),
        ({"id": "x", "function": {"name": None}}, "tool_call.function.name is None"),
    ],
)
def test_a_chat_tool_call_that_names_no_function_is_refused(
    tool_call: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        MessageToolCall.from_chat_tool_call(tool_call)


def test_a_reply_whose_tool_calls_are_none_of_them_functions_is_refused() -> None:
    custom = SimpleNamespace(type="custom", id="c1")
    reply = SimpleNamespace(role="assistant", content="hi", tool_calls=[custom])

    with pytest.raises(ValueError, match="none are of type 'function'"):
        Message.from_llm_chat_message(reply)
