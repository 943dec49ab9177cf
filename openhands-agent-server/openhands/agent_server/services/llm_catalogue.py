"""The LLM catalogue a model picker shows: providers, models, and the ones this project
recommends, from litellm's bundled model map (read on the first call; nothing is fetched).
"""

from __future__ import annotations

import functools
from typing import Any

from openhands.sdk.llm._litellm import import_litellm

RECOMMENDED: dict[str, tuple[str, ...]] = {
    "openai": ("gpt-5", "gpt-5-mini", "gpt-5-codex", "gpt-4.1"),
    "anthropic": ("claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"),
    "gemini": ("gemini-2.5-pro", "gemini-2.5-flash"),
    "deepseek": ("deepseek-chat",),
}
"""Models per provider that call tools reliably and fit this agent's prompts; a short list
for pickers. Only those litellm's map knows are answered (a provider's bare names, as
`provider/name` for providers whose models litellm files with a prefix)."""


@functools.cache
def _model_map() -> dict[str, Any]:
    litellm = import_litellm()
    return {name: info for name, info in litellm.model_cost.items() if name != "sample_spec"}


def provider_of(model: str) -> str | None:
    """The provider litellm files `model` under, else its `provider/` prefix, else None."""
    info = _model_map().get(model)
    provider = info.get("litellm_provider") if isinstance(info, dict) else None
    if isinstance(provider, str):
        return provider
    head, slash, _ = model.partition("/")
    return head if slash else None


def providers() -> list[str]:
    """Every provider litellm can call, sorted."""
    litellm = import_litellm()
    names = {getattr(p, "value", p) for p in litellm.provider_list}
    return sorted(str(name) for name in names)


def models(provider: str | None = None) -> list[str]:
    """Every model of litellm's map (of `provider`, if given), sorted."""
    names = _model_map()
    if provider is None:
        return sorted(names)
    return sorted(name for name in names if provider_of(name) == provider)


def recommended() -> dict[str, list[str]]:
    """The recommended models litellm knows, by provider (bare names, as pickers show)."""
    known = _model_map()
    answer: dict[str, list[str]] = {}
    for provider, names in RECOMMENDED.items():
        found = [n for n in names if n in known or f"{provider}/{n}" in known]
        if found:
            answer[provider] = found
    return answer
