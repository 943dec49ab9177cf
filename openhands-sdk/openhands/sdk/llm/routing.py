"""Which transport carries an LLM's chat completions: the native one or litellm.

The native transport (`openai_compat/`) speaks the OpenAI chat-completions API over httpx;
litellm (imported only when used) speaks every other provider's. `LLM.transport` decides:
"native" or "litellm" force one; "auto" (the default) picks the native transport when

- the call is a chat completion (`api_mode` is not the Responses API, which stays on litellm),
  and
- the model is reached through the OpenAI API: its provider (the `custom_llm_provider`, else
  the model name's prefix before the first "/") is one of `NATIVE_PROVIDERS`
  (`openai/gpt-4o`, `hosted_vllm/qwen`, `litellm_proxy/claude`...), or the name has no prefix
  and either litellm's price table lists it as an OpenAI model (`gpt-4o`) or a `base_url` is
  set (`qwen2.5` on a llama.cpp server: litellm would refuse a name without provider).

Everything else (`anthropic/...`, `bedrock/...`, `gemini/...`, `ollama/...`, `openrouter/...`)
goes through litellm. This module imports nothing heavy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openhands.sdk.llm.model_table import split_model, table_provider
from openhands.sdk.llm.settings import TransportName

if TYPE_CHECKING:
    from openhands.sdk.llm.settings import LLMSettings

NATIVE_PROVIDERS = frozenset({"openai", "hosted_vllm", "lm_studio", "llamafile", "litellm_proxy"})
"""litellm provider prefixes whose servers speak the OpenAI chat-completions API."""


def native_provider(llm: LLMSettings) -> str | None:
    """The provider the native transport talks to for `llm` ("openai" for a bare name), or
    None when "auto" leaves `llm` to litellm."""
    provider, name = split_model(llm.model, llm.custom_llm_provider)
    if provider is not None:
        return provider if provider in NATIVE_PROVIDERS else None
    if llm.base_url:
        return "openai"
    return "openai" if table_provider(name) == "openai" else None


def uses_native_transport(llm: LLMSettings) -> bool:
    """Whether `llm`'s chat completions go through the native transport (see the module)."""
    if llm.transport != "auto":
        return llm.transport == "native"
    if llm.uses_responses_api():
        return False
    return native_provider(llm) is not None


__all__ = [
    "NATIVE_PROVIDERS",
    "TransportName",
    "native_provider",
    "split_model",
    "uses_native_transport",
]
