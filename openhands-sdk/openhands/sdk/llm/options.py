"""The request for one chat completion, as litellm keyword arguments: which `LLM` settings
are sent, and how. Both transports start from it (the native one turns it into the HTTP
request litellm would have sent: `openai_compat/request.py`).

One rule per setting, in one place:

- sampling (`temperature`, `top_p`, `top_k`) is sent unless the model is a known reasoning
  model (they refuse it; Gemini excepted) or Anthropic extended thinking is on;
- `reasoning_effort` is sent only to models known to support it (or forced by
  `capability_overrides={"supports_reasoning_effort": True}`);
- `extended_thinking_budget` turns on Anthropic extended thinking for Claude reasoning models
  when `reasoning_effort` is unset (the budget stays below the output cap);
- credentials and routing (`api_key`, `base_url` / `ollama_base_url`, `api_version`,
  `custom_llm_provider`, `aws_*`) and `seed`, `extra_headers`, `litellm_extra_body` are sent
  as given;
- `drop_params` is passed to litellm: with it, litellm drops what a provider would refuse.
"""

from __future__ import annotations

import copy
import functools
from typing import TYPE_CHECKING, Any

from openhands.sdk.llm.capabilities import supports

if TYPE_CHECKING:
    from openhands.sdk.llm.llm_response import LLMCallContext
    from openhands.sdk.llm.message import Message
    from openhands.sdk.llm.settings import LLMSettings

AWS_FIELDS = (
    "aws_region_name",
    "aws_profile_name",
    "aws_role_name",
    "aws_session_name",
    "aws_bedrock_runtime_endpoint",
)
AWS_SECRET_FIELDS = ("aws_access_key_id", "aws_secret_access_key", "aws_session_token")
CACHE_MARK = {"type": "ephemeral"}


def capability_model(llm: LLMSettings) -> str:
    """The model name capability lookups use (`model_canonical_name` when set)."""
    return llm.model_canonical_name or llm.model


def _reasoning_model(llm: LLMSettings) -> bool:
    return bool(
        supports(
            capability_model(llm),
            "reasoning_effort",
            overrides=llm.capability_overrides,
            provider=llm.custom_llm_provider,
            native=llm.uses_native_transport(),
        )
    )


def _anthropic_thinking(llm: LLMSettings) -> bool:
    return (
        llm.extended_thinking_budget is not None
        and llm.reasoning_effort is None
        and "claude" in capability_model(llm).lower()
        and _reasoning_model(llm)
    )


def output_token_cap(llm: LLMSettings) -> int | None:
    """`max_output_tokens`, else litellm's output limit for the model (None: unknown)."""
    if llm.max_output_tokens is not None:
        return llm.max_output_tokens
    info = llm.model_info
    value = info.get("max_output_tokens") if info else None
    return value if isinstance(value, int) else None


def chat_params(
    llm: LLMSettings,
    *,
    stream: bool,
    call_context: LLMCallContext | None = None,
    overrides: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every litellm keyword argument of one chat call except `messages` and `tools`."""
    params: dict[str, Any] = {
        "model": llm.model,
        "num_retries": 0,  # retries are ours (tenacity), so they are counted and logged
        "drop_params": llm.drop_params,
    }
    if llm.api_key is not None:
        params["api_key"] = llm.api_key.get_secret_value()
    base_url = llm.base_url
    if base_url is None and llm.ollama_base_url and llm.model.startswith("ollama"):
        base_url = llm.ollama_base_url
    if base_url:
        params["base_url"] = base_url
    for name in ("api_version", "custom_llm_provider", "seed", "timeout"):
        value = getattr(llm, name)
        if value is not None:
            params[name] = value
    for name in AWS_FIELDS:
        value = getattr(llm, name)
        if value:
            params[name] = value
    for name in AWS_SECRET_FIELDS:
        secret = getattr(llm, name)
        if secret is not None:
            params[name] = secret.get_secret_value()
    _sampling(llm, params)
    _headers(llm, params, call_context)
    if llm.litellm_extra_body:
        params["extra_body"] = dict(llm.litellm_extra_body)
    if call_context is not None and call_context.prompt_cache_key:
        params["prompt_cache_key"] = call_context.prompt_cache_key
    if stream:
        # include_usage makes OpenAI-style providers report tokens in the last chunk.
        params["stream"] = True
        params["stream_options"] = {"include_usage": True}
    params.update(overrides or {})
    return params


def _sampling(llm: LLMSettings, params: dict[str, Any]) -> None:
    reasoning = _reasoning_model(llm)
    thinking = _anthropic_thinking(llm)
    model = capability_model(llm).lower()
    if not thinking and not (reasoning and "gemini" not in model):
        for name in ("temperature", "top_p", "top_k"):
            value = getattr(llm, name)
            if value is not None:
                params[name] = value
    cap = output_token_cap(llm) if thinking else llm.max_output_tokens
    if cap is not None:
        params["max_tokens"] = cap
    if reasoning and llm.reasoning_effort is not None:
        params["reasoning_effort"] = llm.reasoning_effort
    if thinking and cap is not None and cap > 1 and llm.extended_thinking_budget:
        params["thinking"] = {
            "type": "enabled",
            "budget_tokens": min(llm.extended_thinking_budget, cap - 1),
        }


def _headers(llm: LLMSettings, params: dict[str, Any], call_context: LLMCallContext | None) -> None:
    headers: dict[str, str] = {}
    if llm.model.startswith("openrouter/"):
        # OpenRouter attributes traffic by these headers; per call, never via os.environ.
        if llm.openrouter_site_url:
            headers["HTTP-Referer"] = llm.openrouter_site_url
        if llm.openrouter_app_name:
            headers["X-Title"] = llm.openrouter_app_name
    if "thinking" in params:
        headers["anthropic-beta"] = "interleaved-thinking-2025-05-14"
    headers.update(llm.extra_headers or {})
    if call_context is not None and call_context.session_id:
        headers["x-litellm-session-id"] = call_context.session_id
    if headers:
        params["extra_headers"] = headers


def format_chat_messages(llm: LLMSettings, messages: list[Message]) -> list[dict[str, Any]]:
    """`messages` as chat-completions dicts for this LLM (vision, string mode, cache marks)."""
    vision = llm.vision_is_active()
    force_string = bool(llm.force_string_serializer)
    send_reasoning = _sends_reasoning_content(llm)
    out = [
        m.to_chat_dict(
            vision_enabled=vision,
            force_string_serializer=force_string,
            send_reasoning_content=send_reasoning,
        )
        for m in messages
    ]
    if vision and not force_string and _anthropic(llm):
        from openhands.sdk.llm.image_resize import fit_many_images

        fit_many_images(out)
    if not force_string and llm.is_caching_prompt_active() and _needs_cache_marks(llm):
        mark_prompt_cache(out)
    return out


def _anthropic(llm: LLMSettings) -> bool:
    """Whether requests go to Anthropic (whose many-image limit `image_resize` handles)."""
    if llm.custom_llm_provider:
        return llm.custom_llm_provider == "anthropic"
    return llm.model.startswith("anthropic/") or ("/" not in llm.model and _claude(llm.model))


def _sends_reasoning_content(llm: LLMSettings) -> bool:
    override = llm.capability_overrides.get("send_reasoning_content")
    if isinstance(override, bool):
        return override
    model = capability_model(llm).lower()
    return "kimi" in model and "thinking" in model


@functools.lru_cache(maxsize=64)
def _claude(model: str) -> bool:
    return "claude" in model.lower()


def _needs_cache_marks(llm: LLMSettings) -> bool:
    # OpenAI-style providers cache prefixes by themselves; Anthropic models need markers.
    return _claude(capability_model(llm))


def mark_prompt_cache(messages: list[dict[str, Any]]) -> None:
    """Mark the system prompt and the newest user/tool turn as cache breakpoints (in place)."""
    targets = [i for i, m in enumerate(messages) if m.get("role") == "system"][:1]
    latest = [i for i, m in enumerate(messages) if m.get("role") in ("user", "tool")][-1:]
    for index in dict.fromkeys(targets + latest):
        message = messages[index]
        content = message.get("content")
        if isinstance(content, str):
            if not content:
                continue
            message["content"] = [{"type": "text", "text": content}]
            content = message["content"]
        if isinstance(content, list) and content:
            last: dict[str, Any] = dict(content[-1])
            last["cache_control"] = copy.copy(CACHE_MARK)
            content[-1] = last
