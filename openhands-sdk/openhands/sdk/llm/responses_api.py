"""Completions through the OpenAI Responses API (`LLM(api_mode="responses")`).

The same messages, tools, retries and metrics as chat completions; the request and the
answer are translated to and from the Responses shapes. It never streams.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from openhands.sdk.llm._litellm import import_litellm
from openhands.sdk.llm.errors import LLMError, LLMResponseError
from openhands.sdk.llm.litellm_chat import classify_error, response_cost
from openhands.sdk.llm.llm_response import LLMResponse
from openhands.sdk.llm.message import Message, MessageToolCall, ReasoningItemModel, TextContent
from openhands.sdk.llm.retry_policy import retrying

if TYPE_CHECKING:
    from openhands.sdk.llm.settings import LLMSettings

# Chat-completions settings that the Responses API names differently or does not take.
_RENAMED = {"max_tokens": "max_output_tokens"}
_DROPPED = ("num_retries", "stream", "stream_options", "thinking", "top_k", "reasoning_effort")


def responses_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """Chat-completions tool dicts in the Responses `function` tool shape."""
    if not tools:
        return None
    out = []
    for tool in tools:
        function = tool.get("function", tool)
        out.append(
            {
                "type": "function",
                "name": function["name"],
                "description": function.get("description", ""),
                "parameters": function.get("parameters", {"type": "object", "properties": {}}),
                "strict": False,
            }
        )
    return out


def complete_responses(
    llm: LLMSettings,
    messages: list[Message],
    tools: list[dict[str, Any]] | None,
    params: dict[str, Any],
) -> LLMResponse:
    """One Responses API call with `llm`'s retry policy."""
    litellm = import_litellm()
    instructions, items = llm.format_messages_for_responses(messages)
    request = {_RENAMED.get(k, k): v for k, v in params.items() if k not in _DROPPED}
    request.update(input=items, instructions=instructions)
    if tools:
        request["tools"] = responses_tools(tools)
    if llm.reasoning_effort is not None or llm.reasoning_summary is not None:
        reasoning: dict[str, Any] = {}
        if llm.reasoning_effort is not None:
            reasoning["effort"] = llm.reasoning_effort
        if llm.reasoning_summary is not None:
            reasoning["summary"] = llm.reasoning_summary
        request["reasoning"] = reasoning
        if llm.enable_encrypted_reasoning:
            request["include"] = ["reasoning.encrypted_content"]
            request["store"] = False

    def attempt() -> LLMResponse:
        started = time.monotonic()
        try:
            raw = litellm.responses(**request)
            response = parse_responses_output(llm, raw, litellm)
        except LLMError:
            raise
        except Exception as exc:
            raise classify_error(llm, exc, litellm) from exc
        response.latency = time.monotonic() - started
        return response

    return retrying(llm)(attempt)


def _get(obj: Any, key: str, default: Any = None) -> Any:
    return obj.get(key, default) if isinstance(obj, dict) else getattr(obj, key, default)


def parse_responses_output(llm: LLMSettings, raw: Any, litellm: Any) -> LLMResponse:
    """Our `LLMResponse` for a Responses API answer (text, function calls, reasoning)."""
    output = _get(raw, "output") or []
    texts: list[str] = []
    calls: list[MessageToolCall] = []
    reasoning: ReasoningItemModel | None = None
    for item in output:
        kind = _get(item, "type")
        if kind == "message":
            texts.extend(
                _get(part, "text") or ""
                for part in _get(item, "content") or []
                if _get(part, "type") == "output_text"
            )
        elif kind == "function_call":
            item_id = _get(item, "id")
            calls.append(
                MessageToolCall(
                    id=_get(item, "call_id") or item_id or f"call_{len(calls)}",
                    name=_get(item, "name") or "",
                    arguments=_get(item, "arguments") or "{}",
                    origin="responses",
                    responses_item_id=str(item_id) if item_id else None,
                )
            )
        elif kind == "reasoning":
            reasoning = ReasoningItemModel(
                id=_get(item, "id"),
                summary=[_get(s, "text", "") for s in _get(item, "summary") or []],
                content=[_get(c, "text", "") for c in _get(item, "content") or []] or None,
                encrypted_content=_get(item, "encrypted_content"),
                status=_get(item, "status"),
            )
    text = "\n".join(part for part in texts if part).strip()
    if not text and not calls and reasoning is None:
        raise LLMResponseError(f"LLM {llm.model!r} returned no output", model=llm.model)
    usage = _get(raw, "usage")
    prompt = int(_get(usage, "input_tokens", 0) or 0)
    completion = int(_get(usage, "output_tokens", 0) or 0)
    details = _get(usage, "output_tokens_details")
    cached = _get(_get(usage, "input_tokens_details"), "cached_tokens", 0) or 0
    return LLMResponse(
        message=Message(
            role="assistant",
            content=[TextContent(text=text)] if text else [],
            tool_calls=calls or None,
            responses_reasoning_item=reasoning,
        ),
        id=str(_get(raw, "id", "") or ""),
        cost=response_cost(llm, raw, litellm, prompt, completion),
        prompt_tokens=prompt,
        completion_tokens=completion,
        cache_read_tokens=int(cached),
        reasoning_tokens=int(_get(details, "reasoning_tokens", 0) or 0),
        raw_response=raw,
    )
