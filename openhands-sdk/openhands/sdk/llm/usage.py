"""Per-call usage records of `Metrics`: `Cost`, `ResponseLatency`, `TokenUsage`, and
`MetricsSnapshot` (totals without records).

Loaded on first use (the first completion, or a name imported from here): importing the SDK
does not pay for these classes.
"""

from __future__ import annotations

import time

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Cost", "MetricsSnapshot", "ResponseLatency", "TokenUsage"]


class Cost(BaseModel):
    """The cost (USD) of one completion."""

    model_config = ConfigDict(defer_build=True)

    model: str = ""
    cost: float = Field(default=0.0, ge=0.0)
    timestamp: float = Field(default_factory=time.time)


class ResponseLatency(BaseModel):
    """How long one completion took, in seconds."""

    model_config = ConfigDict(defer_build=True)

    model: str = ""
    latency: float = Field(default=0.0, ge=0.0)
    response_id: str = ""


class TokenUsage(BaseModel):
    """Token counts of one completion (or, added together, of many)."""

    model_config = ConfigDict(defer_build=True)

    model: str = ""
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    cache_read_tokens: int = Field(default=0, ge=0)
    cache_write_tokens: int = Field(default=0, ge=0)
    reasoning_tokens: int = Field(default=0, ge=0)
    context_window: int = Field(default=0, ge=0)
    per_turn_token: int = Field(
        default=0, ge=0, description="Prompt plus completion tokens of the latest call."
    )
    response_id: str = ""

    def __add__(self, other: TokenUsage) -> TokenUsage:
        """The sum of two usages (the context window is the larger one)."""
        return TokenUsage(
            model=self.model,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            context_window=max(self.context_window, other.context_window),
            per_turn_token=other.per_turn_token,
            response_id=self.response_id,
        )


class MetricsSnapshot(BaseModel):
    """Totals of an LLM's usage at one moment (no per-call records)."""

    model_config = ConfigDict(defer_build=True)

    model_name: str = "default"
    accumulated_cost: float = Field(default=0.0, ge=0.0)
    max_budget_per_task: float | None = None
    accumulated_token_usage: TokenUsage | None = None
