"""The native transport and litellm send the same request and read the same answer.

Each case runs once per transport (`LLM(transport="litellm")`, `LLM(transport="native")`)
against its own recording `FakeOpenAIServer` scripted alike, and compares what reached the
server (the JSON body; the headers, without the client's own identity: user agent, the
OpenAI client's `x-stainless-*` telemetry, connection handling) and what came back (the
`LLMResponse`: message, tool calls, usage, cost, stop reason, metrics; the chunks `on_token`
saw). These tests are about litellm: they import it.

Known differences, left out on purpose (docs/llm.md lists them): a streamed answer without
`usage` (litellm then counts tokens itself), a tool call without an id (litellm invents a
random one), models litellm's table does not list under their own name (`ft:` ids).
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from typing import Any

import pytest
from openhands.sdk.llm import LLM, ImageContent, Message, MessageToolCall, TextContent
from openhands.sdk.testing import FakeOpenAIServer, FakeReply
from pydantic import SecretStr

pytestmark = pytest.mark.slow  # imports litellm (seconds) and makes hundreds of calls

PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhf"
    "DwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "terminal",
            "description": "Run a command.",
            "parameters": {
                "type": "object",
                "properties": {
                    "command": {"type": "string", "pattern": "\\p{L}+"},
                    "strict": {"type": "boolean"},
                },
                "required": ["command"],
                "additionalProperties": False,
            },
        },
    }
]
HISTORY = [
    Message(role="system", content=[TextContent(text="You are terse.")]),
    Message(role="user", content=[TextContent(text="list"), ImageContent(image_urls=[PIXEL])]),
    Message(
        role="assistant",
        content=[TextContent(text="listing")],
        tool_calls=[MessageToolCall(id="c1", name="terminal", arguments='{"command":"ls"}')],
    ),
    Message(
        role="tool",
        content=[TextContent(text="a.txt"), ImageContent(image_urls=[PIXEL])],
        tool_call_id="c1",
        name="terminal",
    ),
]
HI = [Message(role="user", content=[TextContent(text="hi")])]
CLIENT_HEADERS = {"user-agent", "accept-encoding", "connection", "host", "content-length"}
TEXT = FakeReply.text("done", prompt_tokens=1200, completion_tokens=34)
CALLS = FakeReply.tool_calls(
    [("terminal", {"command": "ls"}), ("terminal", '{"command": "pwd"}')],
    content="running",
    prompt_tokens=900,
    completion_tokens=40,
)


@dataclass
class Exchange:
    """What one call sent and got back."""

    body: dict[str, Any] | None
    headers: dict[str, str] | None
    requests: int
    response: dict[str, Any] | None
    error: tuple[str, str] | None
    pieces: list[tuple[Any, ...]]


def exchange(
    transport: str,
    model: str,
    replies: list[FakeReply],
    *,
    fields: dict[str, Any] | None = None,
    messages: list[Message] | None = None,
    **call: Any,
) -> Exchange:
    """One completion through `transport`, on a fresh fake server scripted with `replies`."""
    settings: dict[str, Any] = {"api_key": SecretStr("sk-parity"), "num_retries": 0}
    settings.update(copy.deepcopy(fields or {}))
    with FakeOpenAIServer() as server:
        server.script("*", replies)
        settings.setdefault("base_url", server.base_url)
        llm = LLM(model=model, transport=transport, **settings)  # type: ignore[arg-type]
        chunks: list[Any] = []
        response = error = None
        try:
            answer = llm.completion(
                messages or HISTORY, on_token=chunks.append, **copy.deepcopy(call)
            )
            response = answer.model_dump(exclude={"raw_response", "latency"})
        except Exception as exc:
            error = (type(exc).__name__, str(exc))
        requests, headers = server.requests, server.request_headers
    sent = (
        {
            k: v
            for k, v in headers[-1].items()
            if k not in CLIENT_HEADERS and not k.startswith("x-stainless")
        }
        if headers
        else None
    )
    return Exchange(
        body=requests[-1] if requests else None,
        headers=sent,
        requests=len(requests),
        response=response,
        error=error,
        pieces=_pieces(chunks),
    )


def _pieces(chunks: list[Any]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for chunk in chunks:
        for choice in chunk.choices:
            delta = choice.delta
            for name in ("content", "reasoning_content"):
                value = getattr(delta, name, None)
                if value:
                    out.append((name, value))
            for call in getattr(delta, "tool_calls", None) or []:
                out.append(("tool", call.id, call.function.name, call.function.arguments))
    return out


def both(model: str, replies: list[FakeReply], **kwargs: Any) -> tuple[Exchange, Exchange]:
    return (
        exchange("litellm", model, replies, **kwargs),
        exchange("native", model, replies, **kwargs),
    )


def assert_same(model: str, replies: list[FakeReply], **kwargs: Any) -> Exchange:
    via_litellm, native = both(model, replies, **kwargs)
    assert native.error is None and via_litellm.error is None, (via_litellm.error, native.error)
    assert native.body == via_litellm.body
    assert native.headers == via_litellm.headers
    assert native.response == via_litellm.response
    assert native.pieces == via_litellm.pieces
    return native


# -- requests --------------------------------------------------------------------------------

MODELS = [
    "openai/gpt-4o",  # priced, vision, prompt caching
    "openai/agent",  # unknown to the table: free, reasoning_effort forwarded
    "gpt-4.1",  # a bare OpenAI name
    "openai/o3-mini",  # o-series: max_completion_tokens, no sampling
    "openai/gpt-5",  # gpt-5 family
    "openai/gpt-5.2",  # takes reasoning_effort "none"
    "hosted_vllm/qwen3",  # vLLM: schemas without additionalProperties/strict
    "lm_studio/qwen3",
    "llamafile/local",
    "litellm_proxy/claude-sonnet",  # forwarded untouched
]
SETTINGS = {
    "temperature": 0.4,
    "top_p": 0.9,
    "max_output_tokens": 256,
    "reasoning_effort": "high",
    "seed": 7,
    "extra_headers": {"X-Team": "agents"},
    "litellm_extra_body": {"chat_template_kwargs": {"enable_thinking": False}},
}
OPTIONS = {
    "stop": ["STOP"],
    "my_server_option": 1,  # unknown to OpenAI: passed through
    "metadata": {"trace": "x"},  # litellm's own: never sent
    "user": "u-1",
    "presence_penalty": 0.1,
    "tool_choice": "auto",
    "parallel_tool_calls": True,
    "response_format": {"type": "json_object"},
    "logprobs": True,
}


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_history_with_tools_tool_results_and_images(model: str, stream: bool) -> None:
    native = assert_same(model, [CALLS], fields=SETTINGS, tools=TOOLS, stream=stream)
    assert native.response is not None and native.response["message"]["tool_calls"]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_stop_sampling_and_options_litellm_drops_or_passes_on(model: str, stream: bool) -> None:
    assert_same(model, [TEXT], fields={"top_k": 5}, messages=HI, stream=stream, **OPTIONS)


@pytest.mark.parametrize(
    ("model", "fields", "options"),
    [
        ("openai/gpt-5", {"reasoning_effort": "xhigh"}, {}),  # refused level: dropped
        ("openai/gpt-5.2", {"reasoning_effort": "none", "temperature": 0.3}, {"top_p": 0.4}),
        ("openai/gpt-5", {"reasoning_effort": "minimal"}, {}),
        ("openai/o1", {"temperature": 1.0}, {}),
        ("openai/gpt-4o", {"timeout": 12.5}, {}),
        ("openai/agent", {"capability_overrides": {"supports_reasoning_effort": True}}, {}),
        ("openai/agent", {"openrouter_app_name": "x"}, {"extra_headers": {"X-Call": "1"}}),
    ],
)
def test_reasoning_effort_and_model_specific_rules(
    model: str, fields: dict[str, Any], options: dict[str, Any]
) -> None:
    assert_same(model, [TEXT], fields=fields, messages=HI, **options)


def test_prompt_cache_marks_reach_a_compatible_server() -> None:
    native = assert_same(
        "openai/claude-sonnet-4-5",
        [TEXT],
        fields={"capability_overrides": {"supports_prompt_cache": True}},
        tools=TOOLS,
    )
    assert native.body is not None and "cache_control" in str(native.body["messages"])


def test_a_call_context_header_and_prompt_cache_key() -> None:
    from openhands.sdk.llm import LLMCallContext

    assert_same(
        "openai/gpt-4o",
        [TEXT],
        messages=HI,
        call_context=LLMCallContext(prompt_cache_key="conv-1", session_id="conv-1"),
    )


# -- answers ---------------------------------------------------------------------------------

USAGE = {"prompt_tokens": 1000, "completion_tokens": 300, "total_tokens": 1300}


def completion(message: dict[str, Any], finish: str | None = "stop", **usage: Any) -> FakeReply:
    body: dict[str, Any] = {
        "id": "chatcmpl-parity",
        "object": "chat.completion",
        "created": 1,
        "model": "served-name",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {**USAGE, **usage},
    }
    return FakeReply.raw(body)


ANSWERS = {
    "reasoning_content": completion(
        {"role": "assistant", "content": "a", "reasoning_content": "r"}
    ),
    "reasoning (vLLM)": completion({"role": "assistant", "content": "a", "reasoning": "r"}),
    "think tags": completion({"role": "assistant", "content": "<think>hm</think>the answer"}),
    "cached tokens": completion(
        {"role": "assistant", "content": "a"}, prompt_tokens_details={"cached_tokens": 600}
    ),
    "reasoning tokens": completion(
        {"role": "assistant", "content": "a"}, completion_tokens_details={"reasoning_tokens": 200}
    ),
    "cache write": completion(
        {"role": "assistant", "content": "a"},
        cache_read_input_tokens=600,
        cache_creation_input_tokens=100,
    ),
    "DeepSeek cache hits": completion(
        {"role": "assistant", "content": "a"}, prompt_cache_hit_tokens=600
    ),
    "reported cost": completion({"role": "assistant", "content": "a"}, cost=0.0123),
    "length": completion({"role": "assistant", "content": "a"}, finish="length"),
    "end_turn": completion({"role": "assistant", "content": "a"}, finish="end_turn"),
    "no finish reason": completion({"role": "assistant", "content": "a"}, finish=None),
    "arguments as an object": completion(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "t1",
                    "type": "function",
                    "function": {"name": "terminal", "arguments": {"command": "ls"}},
                }
            ],
        }
    ),
    "empty content": completion({"role": "assistant", "content": ""}),
}


@pytest.mark.parametrize("answer", list(ANSWERS), ids=list(ANSWERS))
@pytest.mark.parametrize("model", ["openai/gpt-5", "openai/agent", "hosted_vllm/qwen3"])
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_answers_read_alike(answer: str, model: str, stream: bool) -> None:
    if stream and answer in ("reasoning_content", "reasoning (vLLM)"):
        pytest.skip("litellm counts a streamed reply's reasoning tokens itself")
    assert_same(model, [ANSWERS[answer]], messages=HI, tools=TOOLS, stream=stream)


# -- failures ------------------------------------------------------------------------------


def _lead(text: str) -> str:
    """The actionable part of an error message, before the provider's own words."""
    for end in ("field).", ":"):
        if end in text:
            return text.split(end, 1)[0]
    return text


@pytest.mark.parametrize("status", [400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503])
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_http_errors_become_the_same_error(status: int, stream: bool) -> None:
    via_litellm, native = both(
        "openai/agent", [FakeReply.error(status, f"refused {status}")], messages=HI, stream=stream
    )
    assert native.error is not None and via_litellm.error is not None
    assert native.error[0] == via_litellm.error[0]
    assert _lead(native.error[1]) == _lead(via_litellm.error[1])
    assert f"refused {status}" in native.error[1]


def test_retries_follow_the_one_policy() -> None:
    fields = {"num_retries": 2, "retry_min_wait": 0.0, "retry_max_wait": 0.0}
    replies = [FakeReply.error(503, "busy"), FakeReply.error(429, "slow down"), TEXT]
    via_litellm, native = both("openai/agent", replies, fields=fields, messages=HI)
    assert native.requests == via_litellm.requests == 3
    assert native.response == via_litellm.response


@pytest.mark.parametrize(
    ("case", "model", "fields", "replies"),
    [
        ("timeout", "openai/agent", {"timeout": 0.2}, [TEXT.delayed(2.0)]),
        ("refused", "openai/agent", {"base_url": "http://127.0.0.1:9/v1"}, []),
        ("no key", "openai/agent", {"api_key": None}, [TEXT]),
    ],
)
def test_transport_failures_become_the_same_error(
    case: str,
    model: str,
    fields: dict[str, Any],
    replies: list[FakeReply],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    via_litellm, native = both(model, replies, fields=fields, messages=HI)
    assert native.error is not None and via_litellm.error is not None, case
    assert native.error[0] == via_litellm.error[0]
    assert _lead(native.error[1]) == _lead(via_litellm.error[1])


@pytest.mark.parametrize(
    ("model", "fields", "options"),
    [
        ("openai/o3", {}, {"temperature": 0.5}),
        ("openai/o3", {}, {"top_p": 0.5}),
        ("openai/gpt-5", {}, {"stop": ["x"]}),
        ("openai/gpt-5.1", {"reasoning_effort": "xhigh"}, {}),
    ],
)
def test_a_refused_option_without_drop_params_fails_alike_before_sending(
    model: str, fields: dict[str, Any], options: dict[str, Any]
) -> None:
    via_litellm, native = both(
        model, [TEXT], fields={**fields, "drop_params": False}, messages=HI, **options
    )
    assert native.error is not None and via_litellm.error is not None
    assert native.error[0] == via_litellm.error[0] == "LLMBadRequestError"
    assert "drop_params=True" in native.error[1]
    assert native.requests == via_litellm.requests == 0


# -- prices and capabilities, over litellm's whole OpenAI catalogue ---------------------------


def _openai_chat_models() -> list[str]:
    from openhands.sdk.llm.model_table import _table

    return sorted(
        name
        for name, row in _table().items()
        if row.get("litellm_provider") == "openai"
        and row.get("mode") in ("chat", "responses")
        and not name.startswith("ft:")
    )


USAGES = [
    {"prompt": 1000, "completion": 300},
    {"prompt": 1000, "completion": 300, "cache_read": 600},
    {"prompt": 1000, "completion": 300, "reasoning": 200},
    {"prompt": 1000, "completion": 300, "cache_write": 100},
    {
        "prompt": 300_000,
        "completion": 500,
        "cache_read": 1000,
        "reasoning": 100,
    },  # long-prompt tier
]


def test_every_openai_model_costs_what_litellm_says() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from openhands.sdk.llm._litellm import import_litellm
    from openhands.sdk.llm.model_table import table_entry
    from openhands.sdk.llm.pricing import completion_cost

    litellm = import_litellm()
    from litellm.types.utils import Choices, ModelResponse, Usage
    from litellm.types.utils import Message as LiteLLMMessage

    models = _openai_chat_models()
    assert len(models) > 50
    wrong = []
    for name in models:
        for usage in USAGES:
            fields: dict[str, Any] = {
                "prompt_tokens": usage["prompt"],
                "completion_tokens": usage["completion"],
                "total_tokens": usage["prompt"] + usage["completion"],
            }
            if usage.get("cache_read"):
                fields["prompt_tokens_details"] = {"cached_tokens": usage["cache_read"]}
            if usage.get("reasoning"):
                fields["completion_tokens_details"] = {"reasoning_tokens": usage["reasoning"]}
            if usage.get("cache_write"):
                fields["cache_creation_input_tokens"] = usage["cache_write"]
            raw = ModelResponse(
                model=name,
                choices=[Choices(message=LiteLLMMessage(content="x"))],
                usage=Usage(**fields),
            )
            expected = litellm.completion_cost(completion_response=raw, model=f"openai/{name}")
            ours = completion_cost(
                table_entry(f"openai/{name}"),
                prompt_tokens=usage["prompt"],
                completion_tokens=usage["completion"],
                cache_read_tokens=usage.get("cache_read", 0),
                cache_write_tokens=usage.get("cache_write", 0),
                reasoning_tokens=usage.get("reasoning", 0),
            )
            if abs(expected - ours) > 1e-12 * max(1.0, expected):
                wrong.append((name, usage, expected, ours))
    assert wrong == []


def test_every_openai_model_has_the_capabilities_litellm_gives_it() -> None:
    from openhands.sdk.llm.capabilities import model_info, supports

    names = [f"openai/{n}" for n in _openai_chat_models()] + [
        "openai/agent",
        "openai/o9-preview",  # unknown, but litellm's rules call it a reasoning model
        "openai/gpt-7",
        "gpt-4o",
        "hosted_vllm/qwen3",
        "litellm_proxy/gpt-4o",
    ]
    wrong = []
    for name in names:
        for feature in ("vision", "reasoning_effort", "prompt_cache"):
            expected = supports(name, feature)  # type: ignore[arg-type]
            ours = supports(name, feature, native=True)  # type: ignore[arg-type]
            if bool(expected) != bool(ours) or (expected is None) != (ours is None):
                wrong.append((name, feature, expected, ours))
        theirs, mine = model_info(name) or {}, model_info(name, native=True) or {}
        for key in ("max_input_tokens", "max_output_tokens"):
            if theirs.get(key) != mine.get(key):
                wrong.append((name, key, theirs.get(key), mine.get(key)))
    assert wrong == []


# -- tools in the prompt (native_tool_calling=False) -----------------------------------------

PROMPT_CALL = FakeReply.text(
    "Listing.\n<function=terminal>\n<parameter=command>ls -la</parameter>\n"
    "<parameter=strict>true</parameter>\n",
    prompt_tokens=700,
    completion_tokens=30,
)


def _without_call_ids(exchange: Exchange) -> dict[str, Any] | None:
    """The response with its tool-call ids blanked (calls read from text get fresh ids)."""
    response = copy.deepcopy(exchange.response)
    for call in (response or {}).get("message", {}).get("tool_calls") or []:
        assert call["id"].startswith("call_")
        call["id"] = "<id>"
    return response


def assert_same_without_ids(model: str, replies: list[FakeReply], **kwargs: Any) -> Exchange:
    via_litellm, native = both(model, replies, **kwargs)
    assert native.error is None and via_litellm.error is None, (via_litellm.error, native.error)
    assert native.body == via_litellm.body
    assert _without_call_ids(native) == _without_call_ids(via_litellm)
    return native


@pytest.mark.parametrize(
    "model", ["openai/agent", "openai/gpt-4o", "openai/o3-mini", "hosted_vllm/qwen3", "lm_studio/q"]
)
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_tools_in_the_prompt_send_the_same_body_and_read_the_same_calls(
    model: str, stream: bool
) -> None:
    fields = {**SETTINGS, "native_tool_calling": False}
    via_litellm, native = both(
        model, [PROMPT_CALL], fields=fields, tools=TOOLS, stream=stream, tool_choice="auto"
    )

    assert native.error is None and via_litellm.error is None, (via_litellm.error, native.error)
    assert native.body == via_litellm.body
    assert native.headers == via_litellm.headers
    assert _without_call_ids(native) == _without_call_ids(via_litellm)
    assert native.pieces == via_litellm.pieces
    assert native.body is not None and "tools" not in native.body
    assert "tool_choice" not in native.body
    first, *rest = native.body["messages"]
    assert "# Calling tools" in str(first["content"])  # o3-mini: a user message (litellm's rule)
    assert [m["role"] for m in rest] == ["user", "assistant", "user"]  # the result, as text
    assert native.body.get("stop") == (None if "o3" in model else ["</function"])
    assert native.response is not None
    [call] = native.response["message"]["tool_calls"]
    assert (call["name"], call["arguments"]) == (
        "terminal",
        '{"command": "ls -la", "strict": true}',
    )


def test_tools_in_the_prompt_with_drop_params_off_send_the_same_stop_word() -> None:
    fields = {"native_tool_calling": False, "drop_params": False}
    native = assert_same_without_ids("openai/agent", [PROMPT_CALL], fields=fields, tools=TOOLS)
    assert native.body is not None and native.body["stop"] == ["</function"]
