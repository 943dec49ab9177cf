"""`LLM.completion(on_token=...)`: raw chunks while a reply streams in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from openhands.sdk.llm import LLM, text_message
from openhands.sdk.llm.streaming import LLMStreamChunk
from openhands.sdk.testing import FakeOpenAIServer, FakeReply

HI = [text_message("user", "hi")]


def test_each_streamed_chunk_reaches_on_token_and_the_reply_is_assembled(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("tokens arrive one by one")])
    chunks: list[Any] = []

    response = make_llm(stream=True).completion(HI, on_token=chunks.append)

    assert server.requests[0]["stream"] is True
    assert chunks and all(isinstance(chunk, LLMStreamChunk) for chunk in chunks)
    pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta]
    assert "".join(p for p in pieces if p) == "tokens arrive one by one"
    assert response.message.text == "tokens arrive one by one"


def test_streamed_tool_call_pieces_reach_on_token(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.tool_call("terminal", {"command": "ls"})])
    arguments: list[str] = []

    def on_token(chunk: Any) -> None:
        for choice in chunk.choices:
            for call in getattr(choice.delta, "tool_calls", None) or []:
                arguments.append(call.function.arguments or "")

    response = make_llm().completion(HI, on_token=on_token, stream=True)

    assert "".join(arguments) == '{"command": "ls"}'
    assert response.message.tool_calls is not None
    assert response.message.tool_calls[0].name == "terminal"


def test_on_token_is_not_called_when_the_call_does_not_stream(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("whole")])
    chunks: list[Any] = []

    make_llm().completion(HI, on_token=chunks.append)

    assert chunks == []
    assert not server.requests[0].get("stream")


def test_a_failing_on_token_raises_its_own_error_once(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("one"), FakeReply.text("two")])

    def broken(chunk: Any) -> None:
        raise KeyError("display went away")

    with pytest.raises(KeyError, match="display went away"):
        make_llm(stream=True).completion(HI, on_token=broken)
    assert len(server.requests) == 1  # not retried


def test_streamed_reasoning_reaches_on_token_and_the_reply(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("42", reasoning="six times seven")])
    reasoning: list[str] = []

    def on_token(chunk: LLMStreamChunk) -> None:
        reasoning.extend(c.delta.reasoning_content or "" for c in chunk.choices)

    response = make_llm(stream=True).completion(HI, on_token=on_token)

    assert "".join(reasoning) == "six times seven"
    assert response.message.reasoning_content == "six times seven"
    assert response.message.text == "42"
