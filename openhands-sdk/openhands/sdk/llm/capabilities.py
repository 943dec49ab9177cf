"""What a model can do (vision, reasoning effort, prompt caching) and its limits, from
litellm's model map.

An explicit `LLM.capability_overrides` entry wins (`{"supports_vision": False}`). Otherwise
the model map answers: for an LLM on the native transport the table litellm ships, read as
data (`model_table`, no litellm import); for one on litellm, litellm's own functions (they
know its aliases and provider rules). A model the map does not know gets the benefit of the
doubt for vision (images are sent) and nothing else. Answers are cached per model name.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

Feature = Literal["vision", "reasoning_effort", "prompt_cache"]

_TABLE_KEYS: dict[Feature, str] = {
    "vision": "supports_vision",
    "reasoning_effort": "supports_reasoning",
    "prompt_cache": "supports_prompt_caching",
}


def model_info(
    model: str, provider: str | None = None, *, native: bool = False
) -> dict[str, Any] | None:
    """The map's information on `model` (context window, prices...), or None if unknown."""
    if native:
        from openhands.sdk.llm.model_table import table_entry

        row = table_entry(model, provider)
        return dict(row) if row is not None else None
    return _litellm_model_info(model, provider)


@functools.lru_cache(maxsize=256)
def _litellm_model_info(model: str, provider: str | None) -> dict[str, Any] | None:
    from openhands.sdk.llm._litellm import import_litellm

    litellm = import_litellm()
    try:
        info = litellm.get_model_info(model=model, custom_llm_provider=provider)
    except Exception:  # litellm raises for any model it does not map
        return None
    return dict(info) if info else None


@functools.lru_cache(maxsize=256)
def _litellm_supports(model: str, provider: str | None, feature: Feature) -> bool | None:
    """True/False when litellm knows `model`, None when it does not."""
    if _litellm_model_info(model, provider) is None:
        return None
    from openhands.sdk.llm._litellm import import_litellm

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


def _table_supports(model: str, provider: str | None, feature: Feature) -> bool | None:
    from openhands.sdk.llm.model_table import table_entry

    row = table_entry(model, provider)
    if row is None:
        return None
    return row.get(_TABLE_KEYS[feature]) is True


def supports(
    model: str,
    feature: Feature,
    *,
    overrides: dict[str, bool | str] | None = None,
    provider: str | None = None,
    native: bool = False,
) -> bool | None:
    """Whether `model` supports `feature`: the override, else the map's answer (None: unknown)."""
    override = (overrides or {}).get(f"supports_{feature}")
    if isinstance(override, bool):
        return override
    if native:
        return _table_supports(model, provider, feature)
    return _litellm_supports(model, provider, feature)
