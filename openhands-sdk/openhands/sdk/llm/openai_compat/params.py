"""Which request options reach an OpenAI-compatible server, as litellm decides it.

The native transport starts from the same litellm keyword arguments as litellm itself
(`options.chat_params`) and must send the same JSON body, so it applies litellm's rules:

- Options the OpenAI API defines (`STANDARD`) are sent when the provider and model take
  them (`supported`); one they do not take is left out with `drop_params=True`, else
  `UnsupportedOption` is raised before anything is sent (the transport reports it as the
  `LLMBadRequestError` litellm's refusal becomes).
- OpenAI's reasoning families rename or refuse some: o1/o3/o4 and gpt-5 take
  `max_completion_tokens` instead of `max_tokens` and `temperature` only as 1 (gpt-5.1 and
  later also when the reasoning effort is "none"); gpt-5 refuses a reasoning effort its row
  in the model table marks unsupported ("xhigh" must be marked supported).
- litellm's own options (`TRANSPORT_OPTIONS`: keys, URLs, retries, `metadata`...) are never
  sent; anything else (`top_k`, a server's own option) is sent as it is, like litellm's
  pass-through of provider-specific options.
"""

from __future__ import annotations

from typing import Any

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.llm.model_table import table_entry

STANDARD = frozenset(
    {
        "functions",
        "function_call",
        "temperature",
        "top_p",
        "n",
        "stream",
        "stream_options",
        "stop",
        "max_tokens",
        "max_completion_tokens",
        "modalities",
        "prediction",
        "audio",
        "presence_penalty",
        "frequency_penalty",
        "logit_bias",
        "user",
        "response_format",
        "seed",
        "tools",
        "tool_choice",
        "logprobs",
        "top_logprobs",
        "parallel_tool_calls",
        "reasoning_effort",
        "verbosity",
        "thinking",
        "web_search_options",
        "include_server_side_tool_invocations",
        "service_tier",
        "safety_identifier",
        "prompt_cache_key",
        "prompt_cache_retention",
        "store",
        "metadata",
        "context_management",
    }
)
"""The chat-completion options litellm treats as OpenAI's own (it checks them per model)."""

TRANSPORT_OPTIONS = frozenset(
    {
        "model",
        "messages",
        "api_key",
        "api_base",
        "base_url",
        "api_version",
        "custom_llm_provider",
        "timeout",
        "request_timeout",
        "num_retries",
        "max_retries",
        "drop_params",
        "additional_drop_params",
        "allowed_openai_params",
        "extra_headers",
        "headers",
        "extra_body",
        "organization",
        "metadata",
        "mock_response",
        "caching",
        "cache",
        "litellm_metadata",
        "fallbacks",
        "context_window_fallback_dict",
        "input_cost_per_token",
        "output_cost_per_token",
        "base_model",
        "_skip_mcp_handler",
        "aws_access_key_id",
        "aws_secret_access_key",
        "aws_session_token",
        "aws_region_name",
        "aws_profile_name",
        "aws_role_name",
        "aws_session_name",
        "aws_bedrock_runtime_endpoint",
    }
)
"""litellm's own options: they steer the call and are never part of the body."""

_BASE: tuple[str, ...] = (
    "frequency_penalty",
    "logit_bias",
    "logprobs",
    "top_logprobs",
    "max_tokens",
    "max_completion_tokens",
    "modalities",
    "prediction",
    "n",
    "presence_penalty",
    "seed",
    "stop",
    "stream",
    "stream_options",
    "temperature",
    "top_p",
    "tools",
    "tool_choice",
    "function_call",
    "functions",
    "parallel_tool_calls",
    "audio",
    "web_search_options",
    "service_tier",
    "safety_identifier",
    "prompt_cache_key",
    "prompt_cache_retention",
    "store",
)
"""What every OpenAI-compatible provider takes (litellm's base list)."""

_O_SERIES_REFUSED = ("logprobs", "top_p", "presence_penalty", "frequency_penalty", "top_logprobs")
_GPT5_REFUSED = (
    "presence_penalty",
    "frequency_penalty",
    "stop",
    "logit_bias",
    "modalities",
    "prediction",
    "audio",
    "web_search_options",
)
_GPT5_SAMPLING = ("logprobs", "top_logprobs", "top_p")
_OPT_IN_EFFORTS = frozenset({"xhigh"})
_ROUTE_SPECIFIC_EFFORTS = frozenset({"max"})


def _row(name: str) -> dict[str, Any]:
    return table_entry(name, "openai") or {}


def is_openai_catalog_model(name: str) -> bool:
    """Whether litellm knows `name` as one of OpenAI's own models (its table says so)."""
    row = table_entry(name)
    return bool(row) and row.get("litellm_provider") == "openai" and not _finetune(name)


def _finetune(name: str) -> bool:
    return name.startswith("ft:") and name.count(":") <= 1


def family(provider: str, name: str) -> str:
    """litellm's config for `name` at `provider`: "o-series", "gpt-5", "known", "unknown" (an
    `openai` model litellm does not know, e.g. a proxy alias) or the provider itself."""
    if provider != "openai":
        return provider
    if len(name) > 1 and name[0] == "o" and name[1].isdigit() and is_openai_catalog_model(name):
        return "o-series"
    if ("gpt-5" in name or "gpt-6" in name) and "gpt-5-chat" not in name.split("/")[-1]:
        return "gpt-5"
    return "known" if is_openai_catalog_model(name) else "unknown"


def supported(provider: str, name: str) -> set[str]:
    """The `STANDARD` options `provider` takes for model `name`."""
    kind = family(provider, name)
    params: set[str] = set(_BASE)
    if name not in ("gpt-3.5-turbo-16k", "gpt-4"):
        params.add("response_format")
    if is_openai_catalog_model(name):
        params.add("user")
    if kind == "o-series":
        row = _row(name)
        params.add("reasoning_effort")
        params -= set(_O_SERIES_REFUSED)
        if not row.get("supports_function_calling"):
            params -= {"tools", "tool_choice", "function_call", "functions"}
        if not row.get("supports_parallel_function_calling"):
            params.discard("parallel_tool_calls")
        if not row.get("supports_response_schema"):
            params.discard("response_format")
    elif kind == "gpt-5":
        row = _row(name)
        params |= {"reasoning_effort", "verbosity"}
        if not row.get("supports_tool_choice"):
            params.discard("tool_choice")
        params -= set(_GPT5_REFUSED)
        if not row.get("supports_none_reasoning_effort"):
            params -= set(_GPT5_SAMPLING)
    elif kind in ("unknown", "hosted_vllm"):
        params.add("reasoning_effort")
        if kind == "hosted_vllm":
            params.add("thinking")
    elif kind == "litellm_proxy":
        params |= STANDARD
    return params


class UnsupportedOption(OpenHandsError, ValueError):
    """An option the provider does not take, with `drop_params=False` (litellm's words)."""


def _unsupported(name: str, options: list[str], provider: str) -> UnsupportedOption:
    return UnsupportedOption(
        f"{provider} does not support parameters: {sorted(options)}, for model={name}."
    )


def _effort_resolves_to_none(row: dict[str, Any], effort: Any) -> bool:
    if effort is not None:
        return effort == "none"
    declared = row.get("default_reasoning_effort")
    return declared == "none"


def _refuses_effort(row: dict[str, Any], effort: str) -> bool:
    if effort in _ROUTE_SPECIFIC_EFFORTS:
        return False
    flag = row.get(f"supports_{effort}_reasoning_effort")
    if effort in _OPT_IN_EFFORTS:
        return flag is not True
    return flag is False


def body_options(
    provider: str, name: str, options: dict[str, Any], *, drop_params: bool
) -> dict[str, Any]:
    """The body fields (besides `model` and `messages`) for `options` (litellm kwargs)."""
    given = {k: v for k, v in options.items() if k not in TRANSPORT_OPTIONS and v is not None}
    allowed = set(options.get("allowed_openai_params") or ())
    for extra in options.get("additional_drop_params") or ():
        given.pop(extra, None)
    kind = family(provider, name)
    out: dict[str, Any] = {}
    if kind == "gpt-5":
        _gpt5_rules(name, given, out, drop_params)
    elif kind == "o-series":
        _o_series_rules(name, given, out, drop_params)
    takes = supported(provider, name) | allowed
    refused = [key for key in given if key in STANDARD and key not in takes]
    if refused and not drop_params:
        raise _unsupported(name, refused, provider)
    for key, value in given.items():
        if key in STANDARD and key not in takes:
            continue
        out[key] = value
    if kind == "hosted_vllm":
        out.pop("thinking", None)
    return out


def _o_series_rules(name: str, given: dict[str, Any], out: dict[str, Any], drop: bool) -> None:
    if "max_tokens" in given:
        out["max_completion_tokens"] = given.pop("max_tokens")
    if "temperature" in given:
        value = given.pop("temperature")
        if value == 1:
            out["temperature"] = value
        elif not drop:
            raise UnsupportedOption(
                f"O-series models don't support temperature={value}. Only temperature=1 is "
                "supported.",
            )


def _gpt5_rules(name: str, given: dict[str, Any], out: dict[str, Any], drop: bool) -> None:
    row = _row(name)
    effort = given.get("reasoning_effort")
    if isinstance(effort, dict):
        effort = effort.get("effort")
        given["reasoning_effort"] = effort
    if isinstance(effort, str) and _refuses_effort(row, effort):
        if not drop:
            raise UnsupportedOption(f"reasoning_effort={effort} is not supported for {name}.")
        given.pop("reasoning_effort", None)
        effort = None
    if "max_tokens" in given:
        out["max_completion_tokens"] = given.pop("max_tokens")
    takes_none = row.get("supports_none_reasoning_effort") is True
    resolves_none = _effort_resolves_to_none(row, effort)
    if takes_none and any(key in given for key in _GPT5_SAMPLING) and not resolves_none:
        if not drop:
            raise UnsupportedOption(
                f"{name} only supports logprobs, top_p, top_logprobs when reasoning_effort "
                f"resolves to 'none' (reasoning_effort={effort!r})."
            )
        for key in _GPT5_SAMPLING:
            given.pop(key, None)
    if "temperature" in given:
        value = given.pop("temperature")
        if (takes_none and resolves_none) or value == 1:
            out["temperature"] = value
        elif not drop:
            raise UnsupportedOption(
                f"{name} doesn't support temperature={value} while reasoning is active."
            )


__all__ = [
    "STANDARD",
    "TRANSPORT_OPTIONS",
    "UnsupportedOption",
    "body_options",
    "family",
    "supported",
]
