"""One chat completion through litellm: the call (streamed or not), its parse, its errors.

`transport.complete_chat` calls `complete_litellm` for models litellm carries; everything
that touches litellm's chat objects is here (the Responses API's are in `responses_api.py`).
"""

from __future__ import annotations

import functools
import logging
import time
from typing import TYPE_CHECKING, Any

from openhands.sdk.llm._litellm import import_litellm
from openhands.sdk.llm.callbacks import TokenCallback, TokenCallbackError, deliver
from openhands.sdk.llm.errors import (
    DROP_PARAMS_HINT,
    ENV_HELP,
    LLMError,
    LLMResponseError,
    key_missing,
    key_rejected,
    refused,
    still_failing,
)
from openhands.sdk.llm.llm_response import LLMResponse
from openhands.sdk.llm.message import Message
from openhands.sdk.llm.retry_policy import retrying

if TYPE_CHECKING:
    from openhands.sdk.llm.settings import LLMSettings

logger = logging.getLogger("openhands.sdk.llm.llm")

MISSING_KEY_MARKERS = ("Missing credentials", "api_key client option must be set")
"""What providers' clients say when they find no API key (litellm wraps it as a 500)."""


def complete_litellm(
    llm: LLMSettings, request: dict[str, Any], *, on_token: TokenCallback | None = None
) -> LLMResponse:
    """Send `request` (litellm kwargs) with `llm`'s retry policy and parse the answer.

    When the request streams, `on_token` gets every raw chunk as it arrives.
    """
    litellm = import_litellm()
    if request.get("tools") and _litellm_knows_mcp_skip_flag():
        # Our tools are plain functions. Without this flag, litellm >= 1.80 imports its MCP
        # gateway (which needs the optional `mcp` package) for any call with tools.
        request = {**request, "_skip_mcp_handler": True}

    def attempt() -> LLMResponse:
        started = time.monotonic()
        try:
            if request.get("stream"):
                chunks: list[Any] = []
                for chunk in litellm.completion(**request):
                    chunks.append(chunk)
                    if on_token is not None:
                        deliver(on_token, chunk)
                raw = litellm.stream_chunk_builder(chunks, messages=request["messages"])
            else:
                raw = litellm.completion(**request)
            response = parse_chat_response(llm, raw, litellm)
        except (LLMError, TokenCallbackError):
            raise
        except Exception as exc:  # litellm raises many exception types; classify them
            raise classify_error(llm, exc, litellm) from exc
        response.latency = time.monotonic() - started
        return response

    return retrying(llm)(attempt)


def parse_chat_response(llm: LLMSettings, raw: Any, litellm: Any) -> LLMResponse:
    """Our `LLMResponse` for a litellm `ModelResponse`."""
    choices = getattr(raw, "choices", None) or []
    if not choices:
        raise LLMResponseError(f"LLM {llm.model!r} returned no choices", model=llm.model)
    message = Message.from_llm_chat_message(choices[0].message)
    usage = getattr(raw, "usage", None)
    prompt = _count(usage, "prompt_tokens")
    completion = _count(usage, "completion_tokens")
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    completion_details = getattr(usage, "completion_tokens_details", None)
    cache_read = _count(prompt_details, "cached_tokens") or _count(usage, "cache_read_input_tokens")
    finish = getattr(choices[0], "finish_reason", None)
    return LLMResponse(
        message=message,
        id=getattr(raw, "id", "") or "",
        cost=response_cost(llm, raw, litellm, prompt, completion),
        prompt_tokens=prompt,
        completion_tokens=completion,
        cache_read_tokens=cache_read,
        cache_write_tokens=_count(usage, "cache_creation_input_tokens"),
        reasoning_tokens=_count(completion_details, "reasoning_tokens"),
        finish_reason=finish if isinstance(finish, str) else None,
        raw_response=raw,
    )


def _count(source: Any, name: str) -> int:
    value = getattr(source, name, None) if source is not None else None
    return value if isinstance(value, int) and value > 0 else 0


def response_cost(llm: LLMSettings, raw: Any, litellm: Any, prompt: int, completion: int) -> float:
    """USD of one response: the LLM's own prices when set, else the cost the provider
    reported in `usage.cost` (OpenRouter and some proxies do), else litellm's price map."""
    if llm.input_cost_per_token is not None or llm.output_cost_per_token is not None:
        return prompt * (llm.input_cost_per_token or 0.0) + completion * (
            llm.output_cost_per_token or 0.0
        )
    reported = getattr(getattr(raw, "usage", None), "cost", None)
    if isinstance(reported, int | float) and not isinstance(reported, bool) and reported >= 0:
        return float(reported)
    hidden = getattr(raw, "_hidden_params", None) or {}
    cost = hidden.get("response_cost")
    if cost is None:
        try:
            cost = litellm.completion_cost(completion_response=raw)
        except Exception:  # unknown models have no price; that is not an error
            cost = 0.0
    return float(cost or 0.0)


def classify_error(llm: LLMSettings, exc: Exception, litellm: Any) -> LLMError:
    """The LLMError for a litellm failure; only an `LLMTransientError` is retried."""
    status = getattr(exc, "status_code", None)
    detail = str(exc).strip() or type(exc).__name__
    if isinstance(exc, litellm.AuthenticationError) or status in (401, 403):
        return key_rejected(llm.model, status, detail)
    if llm.api_key is None and any(marker in detail for marker in MISSING_KEY_MARKERS):
        # The provider's client found no key before sending anything; litellm reports that
        # as a server error, but no retry can fix it.
        return key_missing(llm.model, detail)
    retryable = (
        litellm.RateLimitError,
        litellm.Timeout,
        litellm.APIConnectionError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
    )
    if isinstance(exc, retryable) or status == 429 or (status or 0) >= 500:
        return still_failing(llm.model, llm.num_retries, detail)
    if isinstance(exc, litellm.BadRequestError) or (status and 400 <= status < 500):
        hint = ""
        if "LLM Provider NOT provided" in detail:
            hint = f" The model name needs a provider prefix. {ENV_HELP}"
        elif "UnsupportedParamsError" in detail:
            hint = DROP_PARAMS_HINT
        return refused(llm.model, status, detail, hint)
    return LLMError(f"LLM {llm.model!r} call failed: {detail}", model=llm.model)


@functools.cache
def _litellm_knows_mcp_skip_flag() -> bool:
    """True when litellm strips `_skip_mcp_handler` itself, so it never reaches a provider."""
    try:
        from litellm.litellm_core_utils.core_helpers import filter_internal_params
    except ImportError:
        return False
    return "_skip_mcp_handler" not in filter_internal_params({"_skip_mcp_handler": True})
