"""The HTTP request the native transport sends: URL, headers and JSON body.

It starts from the litellm keyword arguments `options.chat_params` builds (the same ones
litellm gets) and produces what litellm would send to that provider: the model name without
its provider prefix, messages and tools shaped as litellm shapes them (`shaping.py`), the
options litellm would send (`params.py`), `extra_body` merged into the body last, and
`extra_headers` over the defaults. Where the URL and key come from, per provider:

| provider | base URL (`base_url`, else) | key (`api_key`, else) |
|---|---|---|
| openai (and bare names) | OPENAI_BASE_URL, OPENAI_API_BASE, https://api.openai.com/v1 | OPENAI_API_KEY, else an error |
| hosted_vllm | HOSTED_VLLM_API_BASE | HOSTED_VLLM_API_KEY, else "fake-api-key" |
| lm_studio | LM_STUDIO_API_BASE | LM_STUDIO_API_KEY, else "fake-api-key" |
| llamafile | LLAMAFILE_API_BASE, http://127.0.0.1:8080/v1 | LLAMAFILE_API_KEY, else "fake-api-key" |
| litellm_proxy | LITELLM_PROXY_API_BASE | LITELLM_PROXY_API_KEY, else an error |

A model forced onto the native transport (`transport="native"`) with another provider
prefix is sent as a generic OpenAI-compatible model and needs a `base_url`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from openhands.sdk.llm.errors import (
    DROP_PARAMS_HINT,
    LLMConfigurationError,
    key_missing,
    refused,
)
from openhands.sdk.llm.openai_compat.params import UnsupportedOption, body_options, family
from openhands.sdk.llm.openai_compat.shaping import shape_messages, shape_tools
from openhands.sdk.llm.routing import NATIVE_PROVIDERS, split_model

if TYPE_CHECKING:
    from openhands.sdk.llm.settings import LLMSettings

_BASE_ENV = {
    "openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "hosted_vllm": ("HOSTED_VLLM_API_BASE",),
    "lm_studio": ("LM_STUDIO_API_BASE",),
    "llamafile": ("LLAMAFILE_API_BASE",),
    "litellm_proxy": ("LITELLM_PROXY_API_BASE",),
}
_DEFAULT_BASE = {"openai": "https://api.openai.com/v1", "llamafile": "http://127.0.0.1:8080/v1"}
_KEY_ENV = {
    "openai": "OPENAI_API_KEY",
    "hosted_vllm": "HOSTED_VLLM_API_KEY",
    "lm_studio": "LM_STUDIO_API_KEY",
    "llamafile": "LLAMAFILE_API_KEY",
    "litellm_proxy": "LITELLM_PROXY_API_KEY",
}
_KEYLESS = frozenset({"hosted_vllm", "lm_studio", "llamafile"})
"""Providers whose servers need no key: litellm then sends this placeholder."""
PLACEHOLDER_KEY = "fake-api-key"


class PreparedRequest:
    """One chat-completion request, ready to send."""

    __slots__ = ("body", "headers", "provider", "stream", "timeout", "url")

    def __init__(
        self,
        *,
        url: str,
        headers: dict[str, str],
        body: dict[str, Any],
        timeout: float | None,
        provider: str,
    ) -> None:
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.provider = provider
        self.stream = bool(body.get("stream"))


def provider_and_name(llm: LLMSettings) -> tuple[str, str]:
    """(the provider whose rules apply, the model name sent) for `llm` on this transport."""
    provider, name = split_model(llm.model, llm.custom_llm_provider)
    if provider is None or provider not in NATIVE_PROVIDERS:
        return "openai", name
    return provider, name


def prepare(llm: LLMSettings, options: dict[str, Any]) -> PreparedRequest:
    """The request for `options` (litellm keyword arguments, `messages` and `tools` included)."""
    provider, name = provider_and_name(llm)
    prefix, _ = split_model(llm.model, llm.custom_llm_provider)
    base_url = options.get("base_url") or options.get("api_base")
    if prefix is not None and prefix not in NATIVE_PROVIDERS and not base_url:
        raise LLMConfigurationError(
            f"LLM {llm.model!r} has transport='native', which speaks the OpenAI API, but no "
            "base_url: set the base_url of its OpenAI-compatible server, or transport='auto'.",
            model=llm.model,
        )
    base_url = base_url or _from_env(_BASE_ENV[provider]) or _DEFAULT_BASE.get(provider)
    if not base_url:
        raise LLMConfigurationError(
            f"LLM {llm.model!r} needs a base_url (or {_BASE_ENV[provider][0]}): the URL of its "
            "server, e.g. 'http://127.0.0.1:8000/v1'.",
            model=llm.model,
        )
    key = options.get("api_key") or os.environ.get(_KEY_ENV[provider]) or None
    if key is None and provider in _KEYLESS:
        key = PLACEHOLDER_KEY
    if key is None:
        raise key_missing(llm.model, f"(the {provider} API needs one: {_KEY_ENV[provider]})")
    try:
        fields = body_options(provider, name, options, drop_params=bool(options.get("drop_params")))
    except UnsupportedOption as exc:
        raise refused(llm.model, 400, str(exc), DROP_PARAMS_HINT) from None
    system_as_user = family(provider, name) == "o-series" and not _takes_system(name)
    body: dict[str, Any] = {
        "model": name,
        "messages": shape_messages(
            options.get("messages") or [],
            provider=provider,
            base_url=base_url,
            system_as_user=system_as_user,
        ),
    }
    body.update(fields)
    if body.get("tools"):
        body["tools"] = shape_tools(body["tools"], provider=provider, base_url=base_url)
    elif not body.get("functions") and provider != "litellm_proxy":
        body.pop("tool_choice", None)
    extra_body = options.get("extra_body")
    if isinstance(extra_body, dict):
        body.update(extra_body)
    return PreparedRequest(
        url=base_url.rstrip("/") + "/chat/completions",
        headers=_headers(provider, key, options),
        body=body,
        timeout=options.get("timeout"),
        provider=provider,
    )


def _from_env(names: tuple[str, ...]) -> str | None:
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def _takes_system(name: str) -> bool:
    from openhands.sdk.llm.model_table import table_entry

    row = table_entry(name, "openai") or {}
    return row.get("supports_system_messages") is True


def _headers(provider: str, key: str, options: dict[str, Any]) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    if provider != "hosted_vllm":  # litellm calls vLLM with plain httpx (Accept: */*)
        headers["Accept"] = "application/json"
    if provider == "openai":
        organization = (
            options.get("organization")
            or os.environ.get("OPENAI_ORGANIZATION")
            or os.environ.get("OPENAI_ORG_ID")
        )
        if organization:
            headers["OpenAI-Organization"] = organization
        project = os.environ.get("OPENAI_PROJECT_ID")
        if project:
            headers["OpenAI-Project"] = project
    for source in (options.get("headers"), options.get("extra_headers")):
        if isinstance(source, dict):
            headers.update({str(k): str(v) for k, v in source.items()})
    return headers


__all__ = ["PLACEHOLDER_KEY", "PreparedRequest", "prepare", "provider_and_name"]
