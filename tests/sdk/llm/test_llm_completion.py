"""`LLM.completion` through litellm against the fake OpenAI server."""

from __future__ import annotations

import json
from collections.abc import Callable

from openhands.sdk.llm import LLM, text_message
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

TERMINAL_TOOL = {
    "type": "function",
    "function": {
        "name": "terminal",
        "description": "Run a shell command.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
}


def test_text_reply_becomes_assistant_message(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("hello there")])

    response = make_llm().completion([text_message("user", "hi")])

    assert response.message.role == "assistant"
    assert response.message.text == "hello there"
    assert response.message.tool_calls is None
    assert response.id.startswith("chatcmpl-fake-")


def test_tool_call_reply_is_parsed_into_message_tool_calls(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.tool_call("terminal", {"command": "ls -la"})])

    response = make_llm().completion([text_message("user", "list")], tools=[TERMINAL_TOOL])

    calls = response.message.tool_calls
    assert calls is not None and len(calls) == 1
    assert calls[0].name == "terminal"
    assert json.loads(calls[0].arguments) == {"command": "ls -la"}
    assert calls[0].id


def test_several_tool_calls_keep_their_order(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script(
        "agent",
        [FakeReply.tool_calls([("think", {"thought": "a"}), ("finish", {"message": "ok"})])],
    )

    response = make_llm().completion([text_message("user", "go")])

    calls = response.message.tool_calls or []
    assert [call.name for call in calls] == ["think", "finish"]
    assert len({call.id for call in calls}) == 2


def test_request_carries_messages_tools_and_key(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM], api_key: str
) -> None:
    server.script("agent", [FakeReply.text("ok")])

    make_llm(max_output_tokens=64).completion(
        [text_message("system", "be brief"), text_message("user", "hi")], tools=[TERMINAL_TOOL]
    )

    (body,) = server.requests
    assert body["model"] == "agent"
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]
    assert body["tools"][0]["function"]["name"] == "terminal"
    assert body["max_tokens"] == 64
    assert not any(key.startswith("_") for key in body)
    assert server.request_headers[0]["authorization"] == f"Bearer {api_key}"


def test_chat_completions_path_without_v1_is_served(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("no v1")])
    llm = make_llm(base_url=server.base_url.removesuffix("/v1"))

    assert llm.completion([text_message("user", "hi")]).message.text == "no v1"


def test_streaming_text_assembles_the_same_message(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("streamed words arrive in pieces")])

    response = make_llm().completion([text_message("user", "hi")], stream=True)

    assert server.requests[0]["stream"] is True
    assert response.message.text == "streamed words arrive in pieces"
    assert response.message.tool_calls is None


def test_streaming_tool_calls_assemble_name_and_arguments(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script(
        "agent",
        [
            FakeReply.tool_calls(
                [("terminal", {"command": "pytest -q"}), ("think", {"thought": "t"})]
            )
        ],
    )

    response = make_llm(stream=True).completion([text_message("user", "go")], tools=[TERMINAL_TOOL])

    calls = response.message.tool_calls or []
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("terminal", {"command": "pytest -q"}),
        ("think", {"thought": "t"}),
    ]


def test_streaming_reports_usage_from_the_last_chunk(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("x", prompt_tokens=12, completion_tokens=3)])

    response = make_llm().completion([text_message("user", "hi")], stream=True)

    assert (response.prompt_tokens, response.completion_tokens) == (12, 3)


def test_stream_false_overrides_a_streaming_llm(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("whole")])

    response = make_llm(stream=True).completion([text_message("user", "hi")], stream=False)

    assert response.message.text == "whole"
    assert not server.requests[0].get("stream")
