"""Where an LLM's calls go, so that a key is only ever sent where it was configured for.

A client names an LLM's endpoint (`base_url`, `ollama_base_url`, a Bedrock endpoint, a
provider) freely. The server's own key (`LLM_API_KEY`) and the stored keys (settings,
profiles) may only be given to an LLM whose calls go where that key was meant for: the same
URL, or, without a URL, the same provider's default endpoint. `Endpoint` is that "where".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from openhands.sdk.llm import LLM


class Endpoint(NamedTuple):
    """An LLM's destination: a URL (normalized), or None for its provider's default one."""

    url: str | None
    provider: str | None
    """`custom_llm_provider`, else the model's prefix (`openai` of `openai/gpt-4o`)."""


def normalize_url(url: str) -> str:
    """`url` compared as a destination: scheme and host lowercase, no trailing slash."""
    text = url.strip()
    try:
        parts = urlsplit(text)
    except ValueError:
        return text.rstrip("/")
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


def model_provider(model: str | None, custom_provider: str | None = None) -> str | None:
    """The provider a model name routes to when it says so (`anthropic/...`), else None."""
    if custom_provider:
        return custom_provider.strip().lower()
    if model and "/" in model:
        return model.split("/", 1)[0].strip().lower()
    return None


def endpoint_of(llm: LLM) -> Endpoint:
    """Where `llm`'s calls go (the fields the transport sends its requests to)."""
    url = llm.base_url
    if not url and llm.ollama_base_url and llm.model.startswith("ollama"):
        url = llm.ollama_base_url
    if not url and llm.aws_bedrock_runtime_endpoint:
        url = llm.aws_bedrock_runtime_endpoint
    return Endpoint(
        normalize_url(url) if url else None,
        model_provider(llm.model, llm.custom_llm_provider),
    )


def same_endpoint(llm: LLM, stored: LLM) -> bool:
    """Whether `llm` calls the same model at the same place as `stored` (whose key it may
    then get)."""
    return llm.model == stored.model and endpoint_of(llm) == endpoint_of(stored)


def server_key_allowed(llm: LLM, *, base_url: str | None, model: str | None) -> bool:
    """Whether the server's `LLM_API_KEY` may go to `llm`.

    With `LLM_BASE_URL` (`base_url`): only to that URL. Without it: only to an LLM that
    names no URL (its provider's default endpoint), and, when `LLM_MODEL` (`model`) is set,
    of the same provider as that model (the same model when a name has no provider prefix).
    """
    target = endpoint_of(llm)
    if base_url:
        return target.url == normalize_url(base_url)
    if target.url is not None:
        return False
    if not model:
        return True
    configured = model_provider(model)
    if configured is not None and target.provider is not None:
        return configured == target.provider
    return llm.model == model
