"""The USD cost of one chat completion from a model-table row and the tokens it used.

The rules are litellm's for token-priced chat models, so the native transport reports the
cost litellm would have: uncached prompt tokens at `input_cost_per_token`, cache hits at
`cache_read_input_token_cost` and cache writes at `cache_creation_input_token_cost` (each
the input rate when the row has none), completion tokens at `output_cost_per_token`,
reasoning tokens reported apart at `output_cost_per_reasoning_token` (else the output rate);
a prompt longer than a row's `..._above_<N>k_tokens` threshold bills every token at that
tier's rates, a row's `tiered_pricing` table picks one tier by prompt size, and an
OpenAI regional host (`eu.api.openai.com`) applies the row's regional uplift. Not modelled
(litellm's other providers need them, the native transport's do not): service tiers,
batch and off-peak prices, audio, image and video tokens.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

_RATE_NAMES = (
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
)


def _rate(row: dict[str, Any], key: str, default: float | None = 0.0) -> float | None:
    value = row.get(key)
    if isinstance(value, bool):
        return default
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return default
    return default


def _threshold(key: str) -> tuple[str, float | None]:
    """("200k", 200000.0) for a `<rate>_above_200k_tokens` key; (_, None): not such a key."""
    if "_above_" not in key or not key.endswith("_tokens"):
        return "", None
    text = key.rsplit("_above_", 1)[1].removesuffix("_tokens")
    scale = 1000.0 if text.endswith("k") else 1.0
    try:
        return text, float(text.removesuffix("k")) * scale
    except ValueError:
        return text, None


def _tier_from_table(row: dict[str, Any], prompt: int) -> dict[str, Any] | None:
    tiers = row.get("tiered_pricing")
    if not isinstance(tiers, list) or prompt <= 0:
        return None
    valid = sorted(
        (t for t in tiers if isinstance(t, dict) and len(t.get("range") or []) == 2),
        key=lambda t: t["range"][0],
    )
    if not valid:
        return None
    chosen = next((t for t in valid if t["range"][0] < prompt <= t["range"][1]), valid[-1])
    return chosen if "input_cost_per_token" in chosen else None


def _base_rates(row: dict[str, Any], prompt: int) -> tuple[float, float, float, float]:
    """(input, output, cache read, cache write) rates for a prompt of `prompt` tokens."""
    tier = _tier_from_table(row, prompt)
    if tier is not None:
        value = _rate(tier, "input_cost_per_token") or 0.0
        output = (
            _rate(tier, "output_cost_per_token")
            if "output_cost_per_token" in tier
            else _rate(row, "output_cost_per_token")
        )
        read = _rate(tier, "cache_read_input_token_cost", None)
        write = _rate(tier, "cache_creation_input_token_cost", None)
        return (
            value,
            output or 0.0,
            value if read is None else read,
            value if write is None else write,
        )
    rates: dict[str, float | None] = {
        "input_cost_per_token": _rate(row, "input_cost_per_token"),
        "output_cost_per_token": _rate(row, "output_cost_per_token"),
        "cache_read_input_token_cost": _rate(row, "cache_read_input_token_cost", None),
        "cache_creation_input_token_cost": _rate(row, "cache_creation_input_token_cost", None),
    }
    prefixes = tuple(f"{name}_above_" for name in _RATE_NAMES)
    crossed: dict[str, float] = {}
    for key, value in row.items():
        if key.startswith(prefixes) and value is not None:
            text, threshold = _threshold(key)
            if threshold is not None and prompt > threshold:
                crossed[text] = threshold
    # Every crossed tier is applied, lowest first, so the highest one's rates win.
    for text in sorted(crossed, key=crossed.__getitem__):
        for name in _RATE_NAMES:
            tiered = _rate(row, f"{name}_above_{text}_tokens", None)
            if tiered is not None:
                rates[name] = tiered
    value = rates["input_cost_per_token"] or 0.0
    read, write = rates["cache_read_input_token_cost"], rates["cache_creation_input_token_cost"]
    return (
        value,
        rates["output_cost_per_token"] or 0.0,
        value if read is None else read,
        value if write is None else write,
    )


def residency_of(base_url: str | None) -> str | None:
    """ "eu" / "us" for OpenAI's regional hosts (`eu.api.openai.com`), else None."""
    host = urlparse(base_url).hostname if base_url else None
    if host and host.endswith(".api.openai.com"):
        region = host.removesuffix(".api.openai.com")
        return region if region in ("eu", "us") else None
    return None


def completion_cost(
    row: dict[str, Any] | None,
    *,
    prompt_tokens: int,
    completion_tokens: int,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
    reasoning_tokens: int = 0,
    residency: str | None = None,
) -> float:
    """USD of one completion; 0 for a model without a row (an unknown model is free)."""
    if not row:
        return 0.0
    rate_in, rate_out, rate_read, rate_write = _base_rates(row, prompt_tokens)
    text_in = max(prompt_tokens - cache_read_tokens - cache_write_tokens, 0)
    cost_in = text_in * rate_in + cache_read_tokens * rate_read + cache_write_tokens * rate_write
    if reasoning_tokens > 0:
        reasoning_rate = _rate(row, "output_cost_per_reasoning_token", None)
        tier = _tier_from_table(row, prompt_tokens)
        if tier is not None and (
            "output_cost_per_reasoning_token" in tier or "output_cost_per_token" in tier
        ):
            reasoning_rate = _rate(tier, "output_cost_per_reasoning_token", None)
            if reasoning_rate is None:
                reasoning_rate = _rate(tier, "output_cost_per_token")
        text_out = max(completion_tokens - reasoning_tokens, 0)
        cost_out = text_out * rate_out + reasoning_tokens * (
            rate_out if reasoning_rate is None else reasoning_rate
        )
    else:
        cost_out = completion_tokens * rate_out
    uplift = (
        _rate(row, f"regional_processing_uplift_multiplier_{residency}", 1.0) if residency else 1.0
    )
    return (cost_in + cost_out) * (uplift or 1.0)


__all__ = ["completion_cost", "residency_of"]
