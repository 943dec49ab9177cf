"""Cost and token accounting for one LLM (per `usage_id`)."""

from __future__ import annotations

import threading

from pydantic import BaseModel, ConfigDict, PrivateAttr


class Metrics(BaseModel):
    """Accumulated cost (USD) and token usage of every completion made by one LLM."""

    model_config = ConfigDict(defer_build=True)

    usage_id: str = "default"
    accumulated_cost: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    completions: int = 0

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def add(self, *, cost: float, prompt_tokens: int, completion_tokens: int) -> None:
        """Record one completion (thread-safe: agents and judges may share an LLM)."""
        with self._lock:
            self.accumulated_cost += max(cost, 0.0)
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens
            self.completions += 1

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens
