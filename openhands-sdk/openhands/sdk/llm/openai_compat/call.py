"""One chat completion through the native transport: prepare, send, parse, with retries."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from openhands.sdk.llm.callbacks import TokenCallbackError
from openhands.sdk.llm.errors import LLMError, LLMResponseError
from openhands.sdk.llm.openai_compat.client import post_json, stream_chunks
from openhands.sdk.llm.openai_compat.request import PreparedRequest, prepare
from openhands.sdk.llm.openai_compat.response import StreamAssembler, parse_completion
from openhands.sdk.llm.retry_policy import retrying

if TYPE_CHECKING:
    from openhands.sdk.llm.callbacks import TokenCallback
    from openhands.sdk.llm.llm_response import LLMResponse
    from openhands.sdk.llm.settings import LLMSettings


def complete_native(
    llm: LLMSettings,
    options: dict[str, Any],
    *,
    on_token: TokenCallback | None = None,
    deliver: Any = None,
) -> LLMResponse:
    """Send `options` (litellm keyword arguments) with `llm`'s retry policy; the parsed reply.

    A streaming request hands each chunk, as an `LLMStreamChunk`, to `deliver(on_token,
    chunk)` as it arrives. Configuration errors (no key, no base URL, an option the model
    refuses) are raised before anything is sent, and never retried.
    """
    request = prepare(llm, options)
    base_url = request.url.removesuffix("/chat/completions")

    def attempt() -> LLMResponse:
        started = time.monotonic()
        try:
            response = _exchange(llm, request, base_url, on_token, deliver)
        except (LLMError, TokenCallbackError):
            raise
        except Exception as exc:  # an answer we cannot read: say so, never a bare traceback
            raise LLMResponseError(
                f"LLM {llm.model!r}: could not read the answer of {request.url}: {exc}",
                model=llm.model,
            ) from exc
        response.latency = time.monotonic() - started
        return response

    return retrying(llm)(attempt)


def _exchange(
    llm: LLMSettings, request: PreparedRequest, base_url: str, on_token: Any, deliver: Any
) -> LLMResponse:
    if request.stream:
        assembler = StreamAssembler()
        chunk_type = _chunk_type() if on_token is not None else None
        for chunk in stream_chunks(llm, request):
            assembler.add(chunk)
            if on_token is not None and chunk_type is not None:
                deliver(on_token, chunk_type.model_validate(chunk))
        return parse_completion(llm, assembler.body(), base_url=base_url, streamed=True)
    return parse_completion(llm, post_json(llm, request), base_url=base_url)


def _chunk_type() -> Any:
    from openhands.sdk.llm.openai_compat.chunks import LLMStreamChunk

    return LLMStreamChunk


__all__ = ["complete_native"]
