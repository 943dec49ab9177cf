"""`native_tool_calling=False`: the tools travel in the prompt, the calls come back from text.

Through the native transport and a recording fake server (nothing here imports litellm; the
same requests through litellm are compared in test_transport_parity.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from openhands.sdk.llm import (
    LLM,
    LLMBadRequestError,
    Message,
    MessageToolCall,
    TextContent,
    text_message,
)
from openhands.sdk.testing import FakeOpenAIServer, FakeReply, TestLLM

TERMINAL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "terminal",
        "description": "Run a command.",
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command."},
                "timeout": {"anyOf": [{"type": "number"}, {"type": "null"}]},
            },
            "required": ["command"],
        },
    },
}
SYSTEM = text_message("system", "You are terse.")
ASK = text_message("user", "list the files")
CALL_TEXT = "Listing.\n<function=terminal>\n<parameter=command>ls -la</parameter>\n"


def test_the_request_carries_no_tools_and_the_prompt_describes_them(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text(CALL_TEXT)])

    make_llm(native_tool_calling=False).completion(
        [SYSTEM, ASK], tools=[TERMINAL], tool_choice="auto", parallel_tool_calls=True
    )

    [body] = server.requests
    assert "tools" not in body and "tool_choice" not in body
    assert "parallel_tool_calls" not in body
    assert body["stop"] == ["</function"]
    system = body["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("You are terse.\n\n# Calling tools")
    assert (
        "## terminal\nRun a command.\nParameters:\n  - command (string; required)"
        in (system["content"])
    )
    assert body["messages"][1] == {"role": "user", "content": "list the files"}


def test_the_reply_text_becomes_tool_calls(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text(CALL_TEXT, prompt_tokens=50, completion_tokens=9)])
    llm = make_llm(native_tool_calling=False)

    response = llm.completion([SYSTEM, ASK], tools=[TERMINAL])

    [call] = response.message.tool_calls or []
    assert call.name == "terminal"
    assert json.loads(call.arguments) == {"command": "ls -la"}
    assert response.message.text == "Listing."
    assert response.finish_reason == "tool_calls"
    assert llm.metrics.accumulated_token_usage.prompt_tokens == 50


def test_a_streamed_reply_is_read_the_same_way(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text(CALL_TEXT)])
    chunks: list[Any] = []

    response = make_llm(native_tool_calling=False, stream=True).completion(
        [SYSTEM, ASK], tools=[TERMINAL], on_token=chunks.append
    )

    assert server.requests[0]["stream"] is True
    assert "tools" not in server.requests[0]
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert streamed == CALL_TEXT  # the tokens are the model's own text, markup included
    [call] = response.message.tool_calls or []
    assert json.loads(call.arguments) == {"command": "ls -la"}


def test_earlier_calls_and_results_are_sent_as_text(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("Done.")])
    history = [
        SYSTEM,
        ASK,
        Message(
            role="assistant",
            content=[TextContent(text="Listing.")],
            tool_calls=[MessageToolCall(id="c1", name="terminal", arguments='{"command": "ls"}')],
        ),
        Message(role="tool", tool_call_id="c1", name="terminal", content=[TextContent(text="a")]),
    ]

    response = make_llm(native_tool_calling=False).completion(history, tools=[TERMINAL])

    messages = server.requests[0]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2] == {
        "role": "assistant",
        "content": "Listing.\n\n<function=terminal>\n<parameter=command>ls</parameter>\n</function>",
    }
    assert messages[3] == {"role": "user", "content": "EXECUTION RESULT of [terminal]:\na"}
    assert response.message.tool_calls is None
    assert response.message.text == "Done."
    assert response.finish_reason == "stop"


@pytest.mark.parametrize(
    ("fields", "stop"),
    [
        ({}, ["</function"]),
        ({"disable_stop_word": True}, None),
        ({"capability_overrides": {"supports_stop_words": False}}, None),
        ({"model": "openai/o3-mini"}, None),  # o-series APIs refuse `stop`
        ({"model": "openai/gpt-5-mini"}, None),
    ],
)
def test_the_stop_word_is_sent_where_the_model_takes_it(
    server: FakeOpenAIServer,
    make_llm: Callable[..., LLM],
    fields: dict[str, Any],
    stop: list[str] | None,
) -> None:
    server.script("*", [FakeReply.text(CALL_TEXT)])

    response = make_llm(native_tool_calling=False, **fields).completion([ASK], tools=[TERMINAL])

    assert server.requests[0].get("stop") == stop
    assert response.message.tool_calls


def test_the_callers_stop_words_are_kept_beside_ours(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("ok")])

    make_llm(native_tool_calling=False).completion([ASK], tools=[TERMINAL], stop="END")

    assert server.requests[0]["stop"] == ["</function", "END"]


def test_without_tools_nothing_changes(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text(CALL_TEXT)])

    response = make_llm(native_tool_calling=False).completion([SYSTEM, ASK])

    [body] = server.requests
    assert "stop" not in body
    assert body["messages"][0] == {"role": "system", "content": "You are terse."}
    assert response.message.tool_calls is None
    assert response.message.text == CALL_TEXT


def test_native_tool_calling_still_sends_the_tools(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script("agent", [FakeReply.text("<function=terminal>")])

    response = make_llm().completion([ASK], tools=[TERMINAL])

    assert server.requests[0]["tools"][0]["function"]["name"] == "terminal"
    assert "stop" not in server.requests[0]
    assert response.message.tool_calls is None  # text is never read as a call natively


def test_a_server_that_refuses_tools_gets_advice_to_move_them_into_the_prompt(
    server: FakeOpenAIServer, make_llm: Callable[..., LLM]
) -> None:
    server.script(
        "agent",
        [
            FakeReply.error(400, "tools param requires --jinja flag"),
            FakeReply.error(400, "context length exceeded"),
        ],
    )
    llm = make_llm()

    with pytest.raises(LLMBadRequestError, match="native_tool_calling=False") as refused:
        llm.completion([ASK], tools=[TERMINAL])
    assert "--jinja" in str(refused.value)
    with pytest.raises(LLMBadRequestError) as other:
        llm.completion([ASK], tools=[TERMINAL])
    assert "native_tool_calling" not in str(other.value)


def test_a_scripted_llm_reads_its_text_replies_as_calls_too() -> None:
    llm = TestLLM.from_messages(
        [text_message("assistant", CALL_TEXT), text_message("assistant", "done")],
        native_tool_calling=False,
    )

    first = llm.completion([SYSTEM, ASK], tools=[TERMINAL])
    second = llm.completion([SYSTEM, ASK], tools=[TERMINAL])

    assert [c.name for c in first.message.tool_calls or []] == ["terminal"]
    assert second.message.tool_calls is None
    sent = llm.calls[0]
    assert "# Calling tools" in sent[0].text


def test_the_sdk_loads_the_prompt_format_only_for_a_completion_that_needs_it(
    server: FakeOpenAIServer,
) -> None:
    server.script("*", [FakeReply.text("a"), FakeReply.text("b")])
    code = f"""
import json, sys
from pydantic import SecretStr
import openhands.sdk
from openhands.sdk.llm import LLM, text_message
loaded = lambda: any(m.startswith("openhands.sdk.llm.prompt_tools") for m in sys.modules)
after_import = loaded()
tool = {json.dumps(TERMINAL)}
llm = LLM(model="openai/agent", base_url={server.base_url!r}, api_key=SecretStr("k"))
llm.completion([text_message("user", "hi")], tools=[tool])
after_native = loaded()
llm.model_copy(update={{"native_tool_calling": False}}).completion(
    [text_message("user", "hi")], tools=[tool])
print(json.dumps([after_import, after_native, loaded()]))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [False, False, True]
