"""What a model can do (vision, reasoning effort, prompt caching), from litellm's model map.

An explicit `LLM.capability_overrides` entry wins (`{"supports_vision": False}`). Otherwise
litellm's bundled model map answers; a model litellm does not know gets the benefit of the
doubt for vision (images are sent) and nothing else. Answers are cached per model name.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

from openhands.sdk.llm._litellm import import_litellm

Feature = Literal["vision", "reasoning_effort", "prompt_cache"]


@functools.lru_cache(maxsize=256)
def model_info(model: str, provider: str | None = None) -> dict[str, Any] | None:
    """litellm's information on `model` (context window, prices...), or None if unknown."""
    litellm = import_litellm()
    try:
        info = litellm.get_model_info(model=model, custom_llm_provider=provider)
    except Exception:  # litellm raises for any model it does not map
        return None
    return dict(info) if info else None


@functools.lru_cache(maxsize=256)
def _litellm_supports(model: str, provider: str | None, feature: Feature) -> bool | None:
    """True/False when litellm knows `model`, None when it does not."""
    if model_info(model, provider) is None:
        return None
    litellm = import_litellm()
    check = {
        "vision": litellm.supports_vision,
        "reasoning_effort": litellm.supports_reasoning,
        "prompt_cache": litellm.utils.supports_prompt_caching,
    }[feature]
    try:
        return bool(check(model=model, custom_llm_provider=provider))
    except Exception:
        return False


def supports(
    model: str,
    feature: Feature,
    *,
    overrides: dict[str, bool | str] | None = None,
    provider: str | None = None,
) -> bool | None:
    """Whether `model` supports `feature`: the override, else litellm's answer (None: unknown)."""
    override = (overrides or {}).get(f"supports_{feature}")
    if isinstance(override, bool):
        return override
    return _litellm_supports(model, provider, feature)
