"""The server's answer as an `LLMResponse`: message, tool calls, usage, cost, stop reason.

`parse_completion` reads a `chat.completion` body; `StreamAssembler` turns the chunks of a
streamed answer into the same body first, so both parse alike. The rules are litellm's for
OpenAI-compatible providers, so both transports give equal responses:

- the reasoning is `reasoning_content`, else `reasoning` (newer vLLM), else, in a reply that
  did not stream, a leading `<think>...</think>` (or `<thinking>`) block of the content,
  which is then removed;
- a tool call without an id gets `call_<n>`; arguments that are not a string are JSON-encoded;
- finish reasons of other dialects are mapped to OpenAI's (`end_turn` -> `stop`,
  `max_tokens` -> `length`, ...; none or an unknown one reads "stop"), and a reply with
  tool calls that did not stream finishes `tool_calls`;
- cache hits are `prompt_tokens_details.cached_tokens` (or `cache_read_input_tokens`,
  `prompt_cache_hit_tokens`), cache writes `cache_creation_input_tokens`, reasoning tokens
  `completion_tokens_details.reasoning_tokens`;
- the cost is the LLM's own prices when set, else `usage.cost` when the server reports one
  (OpenRouter, LiteLLM proxies), else litellm's price table (`pricing.py`).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from openhands.sdk.llm.errors import LLMResponseError
from openhands.sdk.llm.llm_response import LLMResponse
from openhands.sdk.llm.message import Message, MessageToolCall, TextContent

if TYPE_CHECKING:
    from openhands.sdk.llm.settings import LLMSettings

_THINK = re.compile(
    r"<(?:think|thinking|budget:thinking)>(.*?)</(?:think|thinking|budget:thinking)>(.*)",
    re.DOTALL,
)

FINISH_REASONS = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "function_call",
    "content_filter": "content_filter",
    "stop_sequence": "stop",
    "end_turn": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "content_filtered": "content_filter",
    "eos": "stop",
    "eos_token": "stop",
    "error": "stop",
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
}
"""Finish reasons servers send -> OpenAI's; anything else reads as "stop" (litellm's rule)."""


def split_reasoning(message: dict[str, Any]) -> tuple[str | None, str | None]:
    """(reasoning, content) of an assistant message dict."""
    content = message.get("content")
    if "reasoning_content" in message:
        return _text_or_none(message["reasoning_content"]), _text_or_none(content)
    if "reasoning" in message:
        return _text_or_none(message["reasoning"]), _text_or_none(content)
    if isinstance(content, str) and content:
        found = _THINK.match(content)
        if found:
            return found.group(1), found.group(2)
    return None, _text_or_none(content)


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _tool_calls(message: dict[str, Any]) -> list[MessageToolCall]:
    calls = []
    for index, call in enumerate(message.get("tool_calls") or []):
        if not isinstance(call, dict) or call.get("type", "function") not in (None, "function"):
            continue
        function = call.get("function") or {}
        arguments = function.get("arguments")
        calls.append(
            MessageToolCall(
                id=call.get("id") or f"call_{index}",
                name=function.get("name") or "",
                arguments=arguments
                if isinstance(arguments, str)
                else "{}"
                if arguments is None
                else json.dumps(arguments),
            )
        )
    return calls


def _count(source: Any, name: str) -> int:
    value = source.get(name) if isinstance(source, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def parse_completion(
    llm: LLMSettings, body: dict[str, Any], *, base_url: str | None, streamed: bool = False
) -> LLMResponse:
    """Our `LLMResponse` for a `chat.completion` body (`streamed`: assembled from chunks)."""
    choices = body.get("choices") if isinstance(body, dict) else None
    if not choices or not isinstance(choices[0], dict):
        raise LLMResponseError(f"LLM {llm.model!r} returned no choices", model=llm.model)
    choice = choices[0]
    message = choice.get("message") or {}
    reasoning, content = split_reasoning(message)
    calls = _tool_calls(message)
    received = choice.get("finish_reason")
    finish = FINISH_REASONS.get(received or "stop", "stop")
    if calls and not streamed:
        finish = "tool_calls"
    found = body.get("usage")
    usage: dict[str, Any] = found if isinstance(found, dict) else {}
    prompt = _count(usage, "prompt_tokens")
    completion = _count(usage, "completion_tokens")
    details = usage.get("prompt_tokens_details")
    cache_read = (
        _count(details, "cached_tokens")
        or _count(usage, "cache_read_input_tokens")
        or _count(usage, "prompt_cache_hit_tokens")
    )
    cache_write = _count(usage, "cache_creation_input_tokens")
    reasoning_tokens = _count(usage.get("completion_tokens_details"), "reasoning_tokens")
    return LLMResponse(
        message=Message(
            role="assistant",
            content=[TextContent(text=content)] if content else [],
            tool_calls=calls or None,
            reasoning_content=reasoning or None,
        ),
        id=str(body.get("id") or ""),
        cost=_cost(
            llm,
            usage,
            base_url=base_url,
            prompt=prompt,
            completion=completion,
            cache_read=cache_read,
            cache_write=cache_write,
            reasoning=reasoning_tokens,
        ),
        prompt_tokens=prompt,
        completion_tokens=completion,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        reasoning_tokens=reasoning_tokens,
        finish_reason=finish,
        raw_response=body,
    )


def _cost(
    llm: LLMSettings,
    usage: dict[str, Any],
    *,
    base_url: str | None,
    prompt: int,
    completion: int,
    cache_read: int,
    cache_write: int,
    reasoning: int,
) -> float:
    if llm.input_cost_per_token is not None or llm.output_cost_per_token is not None:
        return prompt * (llm.input_cost_per_token or 0.0) + completion * (
            llm.output_cost_per_token or 0.0
        )
    reported = usage.get("cost")
    if isinstance(reported, int | float) and not isinstance(reported, bool) and reported >= 0:
        return float(reported)
    from openhands.sdk.llm.model_table import table_entry
    from openhands.sdk.llm.pricing import completion_cost, residency_of

    return completion_cost(
        table_entry(llm.model, llm.custom_llm_provider),
        prompt_tokens=prompt,
        completion_tokens=completion,
        cache_read_tokens=cache_read,
        cache_write_tokens=cache_write,
        reasoning_tokens=reasoning,
        residency=residency_of(base_url),
    )


class StreamAssembler:
    """Collects the chunks of a streamed reply into one `chat.completion` body."""

    def __init__(self) -> None:
        self._first: dict[str, Any] = {}
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}
        self._finish: str | None = None
        self._usage: dict[str, Any] | None = None

    def add(self, chunk: dict[str, Any]) -> None:
        """Take one chunk (a parsed `data:` line)."""
        if not self._first:
            self._first = {k: chunk.get(k) for k in ("id", "created", "model")}
        if isinstance(chunk.get("usage"), dict):
            self._usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                self._content.append(delta["content"])
            piece = delta.get("reasoning_content", delta.get("reasoning"))
            if isinstance(piece, str):
                self._reasoning.append(piece)
            for call in delta.get("tool_calls") or []:
                self._add_call(call)
            if choice.get("finish_reason"):
                self._finish = choice["finish_reason"]

    def _add_call(self, call: dict[str, Any]) -> None:
        index = call.get("index", len(self._calls))
        slot = self._calls.setdefault(
            index, {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
        )
        if call.get("id") and not slot["id"]:
            slot["id"] = call["id"]
        function = call.get("function") or {}
        if function.get("name"):
            slot["function"]["name"] += function["name"]
        arguments = function.get("arguments")
        if arguments is not None:
            slot["function"]["arguments"] += (
                arguments if isinstance(arguments, str) else json.dumps(arguments)
            )

    def body(self) -> dict[str, Any]:
        """The assembled reply."""
        # `reasoning_content` is always set, so no `<think>` block is looked for: litellm
        # leaves a streamed reply's content as it came.
        message: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(self._content) or None,
            "reasoning_content": "".join(self._reasoning) or None,
        }
        if self._calls:
            message["tool_calls"] = [self._calls[i] for i in sorted(self._calls)]
        body: dict[str, Any] = {
            **self._first,
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": self._finish}],
        }
        if self._usage is not None:
            body["usage"] = self._usage
        return body


__all__ = ["FINISH_REASONS", "StreamAssembler", "parse_completion", "split_reasoning"]
