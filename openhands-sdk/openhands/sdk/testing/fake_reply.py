"""`FakeReply`: one scripted answer of the fake OpenAI server, and its JSON rendering."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from openhands.sdk.errors import InvalidArgumentError

_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("rate_limit_error", "rate_limit_exceeded"),
}


@dataclass(frozen=True)
class FakeReply:
    """One scripted answer: an assistant message (text and/or tool calls) or an HTTP error.

    Build replies with `text`, `tool_call`, `tool_calls`, `error` or `raw` (an exact body);
    `delayed` returns a copy that waits before answering, `with_usage` one that reports more
    usage fields (cached or reasoning tokens).
    """

    content: str | None = None
    calls: tuple[tuple[str, str], ...] = ()
    """Tool calls as `(name, arguments JSON string)` pairs."""
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    status: int = 200
    error_message: str = ""
    error_type: str | None = None
    error_code: str | None = None
    delay: float = 0.0
    cost: float | None = None
    """USD the server reports for this answer in `usage.cost` (as OpenRouter does); None:
    no cost reported (the client prices the tokens itself)."""
    reasoning: str | None = None
    """Sent as the message's (or the stream's deltas') `reasoning_content`."""
    usage_extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """More `usage` fields, e.g. `{"prompt_tokens_details": {"cached_tokens": 5}}`."""
    raw_body: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    """An exact `chat.completion` body to answer with (see `raw`)."""
    raw_chunks: tuple[dict[str, Any], ...] | None = field(default=None, compare=False, hash=False)
    """Exact stream chunks to answer a streaming request with (see `raw`)."""

    @classmethod
    def text(
        cls,
        content: str,
        *,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        finish_reason: str = "stop",
        reasoning: str | None = None,
    ) -> FakeReply:
        """An assistant message holding `content` (and `reasoning`) and no tool call."""
        return cls(
            content=content,
            finish_reason=finish_reason,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            reasoning=reasoning,
        )

    @classmethod
    def raw(cls, body: dict[str, Any], chunks: Sequence[dict[str, Any]] | None = None) -> FakeReply:
        """Answer with exactly `body` (a `chat.completion`), or, to a streaming request, with
        exactly `chunks` (default: one chunk carrying `body`'s message and usage)."""
        return cls(raw_body=dict(body), raw_chunks=tuple(chunks) if chunks is not None else None)

    @classmethod
    def tool_call(
        cls,
        name: str,
        arguments: dict[str, Any] | str,
        *,
        content: str | None = None,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
    ) -> FakeReply:
        """An assistant message calling tool `name` with `arguments` (a dict or JSON string)."""
        return cls.tool_calls(
            [(name, arguments)],
            content=content,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )

    @classmethod
    def tool_calls(
        cls,
        calls: Sequence[tuple[str, dict[str, Any] | str]],
        *,
        content: str | None = None,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
    ) -> FakeReply:
        """An assistant message with several tool calls, given as `(name, arguments)` pairs."""
        if not calls:
            raise InvalidArgumentError(
                "FakeReply.tool_calls needs at least one (name, arguments) pair"
            )
        encoded = tuple(
            (name, args if isinstance(args, str) else json.dumps(args)) for name, args in calls
        )
        return cls(
            content=content,
            calls=encoded,
            finish_reason="tool_calls",
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )

    @classmethod
    def error(
        cls,
        status: int,
        message: str,
        *,
        type: str | None = None,
        code: str | None = None,
    ) -> FakeReply:
        """An HTTP error `status` with an OpenAI-style `{"error": {...}}` body."""
        if not 400 <= status <= 599:
            raise InvalidArgumentError(f"FakeReply.error needs a 4xx or 5xx status, got {status}")
        default_type, default_code = _ERROR_TYPES.get(status, ("server_error", None))
        return cls(
            status=status,
            error_message=message,
            error_type=type or default_type,
            error_code=code if code is not None else default_code,
        )

    def with_usage(self, **fields: Any) -> FakeReply:
        """A copy that also reports `fields` in `usage` (e.g. `completion_tokens_details`)."""
        return dataclasses.replace(self, usage_extra={**self.usage_extra, **fields})

    def delayed(self, seconds: float) -> FakeReply:
        """A copy of this reply that waits `seconds` before answering."""
        if seconds < 0:
            raise InvalidArgumentError(f"delay must be >= 0 seconds, got {seconds}")
        return dataclasses.replace(self, delay=seconds)

    @property
    def is_error(self) -> bool:
        """True when this reply is an HTTP error rather than a message."""
        return self.status >= 400


def error_body(reply: FakeReply) -> dict[str, Any]:
    return {
        "error": {
            "message": reply.error_message,
            "type": reply.error_type,
            "param": None,
            "code": reply.error_code,
        }
    }


def _usage(reply: FakeReply) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }
    if reply.cost is not None:
        usage["cost"] = reply.cost
    usage.update(reply.usage_extra)
    return usage


def completion_body(
    reply: FakeReply, model: str, completion_id: str, call_ids: list[str]
) -> dict[str, Any]:
    if reply.raw_body is not None:
        return reply.raw_body
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.reasoning is not None:
        message["reasoning_content"] = reply.reasoning
    if reply.calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
            for call_id, (name, args) in zip(call_ids, reply.calls, strict=True)
        ]
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
        "usage": _usage(reply),
    }


def stream_chunks(
    reply: FakeReply, model: str, completion_id: str, call_ids: list[str]
) -> Iterator[dict[str, Any]]:
    """The `chat.completion.chunk` objects of a streamed reply, split like a real provider."""
    if reply.raw_body is not None:
        yield from reply.raw_chunks or _one_chunk(reply.raw_body)
        return
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    yield chunk({"role": "assistant", "content": ""})
    for piece in _halves(reply.reasoning or ""):
        yield chunk({"reasoning_content": piece})
    for piece in _halves(reply.content or ""):
        yield chunk({"content": piece})
    for index, (call_id, (name, args)) in enumerate(zip(call_ids, reply.calls, strict=True)):
        head = {"index": index, "id": call_id, "type": "function"}
        yield chunk({"tool_calls": [{**head, "function": {"name": name, "arguments": ""}}]})
        for piece in _halves(args):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    final = chunk({}, reply.finish_reason)
    final["usage"] = _usage(reply)
    yield final


def _one_chunk(body: dict[str, Any]) -> list[dict[str, Any]]:
    choices = body.get("choices") or [{}]
    first = choices[0] if isinstance(choices[0], dict) else {}
    chunk = {
        **{k: v for k, v in body.items() if k not in ("choices", "object")},
        "object": "chat.completion.chunk",
        "choices": [
            {
                "index": 0,
                "delta": first.get("message") or {},
                "finish_reason": first.get("finish_reason"),
            }
        ],
    }
    return [chunk]


def _halves(text: str) -> list[str]:
    if not text:
        return []
    middle = len(text) // 2
    return [part for part in (text[:middle], text[middle:]) if part]
