"""Cost and token accounting for one LLM (per `usage_id`).

`Metrics` keeps running totals (cost, tokens, completions) that are serialized with a
conversation, plus the newest per-call records (`costs`, `response_latencies`,
`token_usages`) that live in memory only: a conversation's persisted stats stay the same
size however many calls it makes. How many records are kept is `Metrics.max_records`
(environment `OH_METRICS_MAX_RECORDS`, default 1000; 0 = unlimited).
"""

from __future__ import annotations

import copy
import os
import threading
from typing import TYPE_CHECKING, Any, ClassVar

from openhands.sdk.errors import InvalidArgumentError
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    computed_field,
    field_validator,
    model_validator,
)

if TYPE_CHECKING:
    from openhands.sdk.llm.usage import Cost, MetricsSnapshot, ResponseLatency, TokenUsage

__all__ = ["Metrics"]


def _max_records_from_env() -> int:
    raw = os.environ.get("OH_METRICS_MAX_RECORDS", "").strip()
    if not raw:
        return 1000
    try:
        return max(int(raw), 0)
    except ValueError:
        return 1000


_COUNTERS = (
    "prompt_tokens",
    "completion_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


class Metrics(BaseModel):
    """Accumulated cost (USD) and token usage of every completion made by one LLM.

    Totals are fields (serialized); the per-call lists hold the newest `max_records`
    records and are not serialized.
    """

    model_config = ConfigDict(defer_build=True)

    max_records: ClassVar[int] = _max_records_from_env()
    """Per-call records kept in each list (`OH_METRICS_MAX_RECORDS`; 0 = unlimited)."""

    usage_id: str = "default"
    model_name: str = "default"
    accumulated_cost: float = 0.0
    max_budget_per_task: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    context_window: int = Field(default=0, description="The largest context window seen.")
    completions: int = 0
    # The record classes load with the first record (see `openhands.sdk.llm.usage`), so the
    # lists are `Any` to pydantic; type checkers see the record types.
    if TYPE_CHECKING:
        costs: list[Cost] = Field(default_factory=list, exclude=True)
        response_latencies: list[ResponseLatency] = Field(default_factory=list, exclude=True)
        token_usages: list[TokenUsage] = Field(default_factory=list, exclude=True)
    else:
        costs: list[Any] = Field(default_factory=list, exclude=True)
        response_latencies: list[Any] = Field(default_factory=list, exclude=True)
        token_usages: list[Any] = Field(default_factory=list, exclude=True)

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @model_validator(mode="before")
    @classmethod
    def _from_reference_shape(cls, data: Any) -> Any:
        # Metrics written by the reference SDK keep their token totals in
        # `accumulated_token_usage`; fold them into our counters.
        if not isinstance(data, dict):
            return data
        usage = data.get("accumulated_token_usage")
        if not isinstance(usage, dict | BaseModel):
            return data
        values = usage if isinstance(usage, dict) else usage.model_dump()
        data = {key: value for key, value in data.items() if key != "accumulated_token_usage"}
        for name in (*_COUNTERS, "context_window"):
            if name not in data and isinstance(values.get(name), int):
                data[name] = values[name]
        if "completions" not in data and isinstance(data.get("token_usages"), list):
            data["completions"] = len(data["token_usages"])
        return data

    @field_validator("costs", "response_latencies", "token_usages", mode="after")
    @classmethod
    def _records(cls, value: list[Any], info: Any) -> list[Any]:
        if not value:
            return value
        from openhands.sdk.llm import usage

        record = {
            "costs": usage.Cost,
            "response_latencies": usage.ResponseLatency,
            "token_usages": usage.TokenUsage,
        }[info.field_name]
        return [item if isinstance(item, record) else record.model_validate(item) for item in value]

    @computed_field(return_type=Any)  # type: ignore[prop-decorator]
    @property
    def accumulated_token_usage(self) -> TokenUsage:
        """All token counts so far, as one `TokenUsage`."""
        from openhands.sdk.llm.usage import TokenUsage

        return TokenUsage(
            model=self.model_name,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cache_read_tokens=self.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens,
            context_window=self.context_window,
            per_turn_token=self.token_usages[-1].per_turn_token if self.token_usages else 0,
        )

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    # -- recording ----------------------------------------------------------------------------

    def add(
        self,
        *,
        cost: float,
        prompt_tokens: int,
        completion_tokens: int,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        reasoning_tokens: int = 0,
        context_window: int = 0,
        response_id: str = "",
        latency: float | None = None,
        model: str | None = None,
    ) -> None:
        """Record one completion (thread-safe: agents and judges may share an LLM)."""
        from openhands.sdk.llm.usage import Cost, ResponseLatency, TokenUsage

        name = model or self.model_name
        cost = max(cost, 0.0)
        usage = TokenUsage(
            model=name,
            prompt_tokens=max(prompt_tokens, 0),
            completion_tokens=max(completion_tokens, 0),
            cache_read_tokens=max(cache_read_tokens, 0),
            cache_write_tokens=max(cache_write_tokens, 0),
            reasoning_tokens=max(reasoning_tokens, 0),
            context_window=max(context_window, 0),
            per_turn_token=max(prompt_tokens, 0) + max(completion_tokens, 0),
            response_id=response_id,
        )
        with self._lock:
            self.accumulated_cost += cost
            self.prompt_tokens += usage.prompt_tokens
            self.completion_tokens += usage.completion_tokens
            self.cache_read_tokens += usage.cache_read_tokens
            self.cache_write_tokens += usage.cache_write_tokens
            self.reasoning_tokens += usage.reasoning_tokens
            self.context_window = max(self.context_window, usage.context_window)
            self.completions += 1
            if cost:  # a free call (unknown price, scripted reply) has no cost record
                self._keep(self.costs, Cost(model=name, cost=cost))
            self._keep(self.token_usages, usage)
            if latency is not None:
                record = ResponseLatency(
                    model=name, latency=max(latency, 0.0), response_id=response_id
                )
                self._keep(self.response_latencies, record)

    def add_cost(self, value: float) -> None:
        """Add `value` USD without a completion (e.g. a tool that pays for something)."""
        from openhands.sdk.llm.usage import Cost

        if value < 0:
            raise InvalidArgumentError(f"a cost cannot be negative, got {value}")
        with self._lock:
            self.accumulated_cost += value
            self._keep(self.costs, Cost(model=self.model_name, cost=value))

    def add_token_usage(
        self,
        prompt_tokens: int,
        completion_tokens: int,
        cache_read_tokens: int,
        cache_write_tokens: int,
        context_window: int,
        response_id: str,
        reasoning_tokens: int = 0,
    ) -> None:
        """Record the tokens of one call without a cost (the reference SDK's signature)."""
        from openhands.sdk.llm.usage import TokenUsage

        usage = TokenUsage(
            model=self.model_name,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cache_read_tokens=cache_read_tokens,
            cache_write_tokens=cache_write_tokens,
            reasoning_tokens=reasoning_tokens,
            context_window=context_window,
            per_turn_token=prompt_tokens + completion_tokens,
            response_id=response_id,
        )
        with self._lock:
            for name in _COUNTERS:
                setattr(self, name, getattr(self, name) + getattr(usage, name))
            self.context_window = max(self.context_window, context_window)
            self._keep(self.token_usages, usage)

    def add_response_latency(self, value: float, response_id: str) -> None:
        """Record how long one call took."""
        from openhands.sdk.llm.usage import ResponseLatency

        with self._lock:
            self._keep(
                self.response_latencies,
                ResponseLatency(
                    model=self.model_name, latency=max(value, 0.0), response_id=response_id
                ),
            )

    def _keep(self, records: list[Any], record: Any) -> None:
        records.append(record)
        limit = self.max_records
        if limit and len(records) > limit:
            del records[: len(records) - limit]

    # -- combining ----------------------------------------------------------------------------

    def merge(self, other: Metrics) -> None:
        """Add `other`'s totals and records to this one."""
        if other is self:
            other = other.deep_copy()
        with self._lock:
            self.accumulated_cost += other.accumulated_cost
            for name in _COUNTERS:
                setattr(self, name, getattr(self, name) + getattr(other, name))
            self.context_window = max(self.context_window, other.context_window)
            self.completions += other.completions
            if self.max_budget_per_task is None:
                self.max_budget_per_task = other.max_budget_per_task
            for name in ("costs", "response_latencies", "token_usages"):
                for record in getattr(other, name):
                    self._keep(getattr(self, name), record)

    def diff(self, baseline: Metrics) -> Metrics:
        """What was added since `baseline` (an earlier `deep_copy` of this object)."""
        result = Metrics(usage_id=self.usage_id, model_name=self.model_name)
        result.accumulated_cost = max(self.accumulated_cost - baseline.accumulated_cost, 0.0)
        for name in _COUNTERS:
            setattr(result, name, max(getattr(self, name) - getattr(baseline, name), 0))
        result.context_window = self.context_window
        result.completions = max(self.completions - baseline.completions, 0)
        added = result.completions
        result.token_usages = self.token_usages[-added:] if added else []
        result.response_latencies = self.response_latencies[len(baseline.response_latencies) :]
        since = baseline.costs[-1].timestamp if baseline.costs else None
        result.costs = [c for c in self.costs if since is None or c.timestamp > since]
        return result

    def deep_copy(self) -> Metrics:
        """An independent copy (its own lists and lock)."""
        with self._lock:
            return Metrics(
                **{name: copy.deepcopy(getattr(self, name)) for name in type(self).model_fields}
            )

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Metrics:
        # The lock cannot be copied; a deep copy gets its own.
        return self.deep_copy()

    def get_snapshot(self) -> MetricsSnapshot:
        """The totals now, without the per-call records."""
        from openhands.sdk.llm.usage import MetricsSnapshot

        return MetricsSnapshot(
            model_name=self.model_name,
            accumulated_cost=self.accumulated_cost,
            max_budget_per_task=self.max_budget_per_task,
            accumulated_token_usage=self.accumulated_token_usage,
        )

    def get(self) -> dict[str, Any]:
        """Totals and per-call records as plain data (the reference SDK's shape)."""
        return {
            "accumulated_cost": self.accumulated_cost,
            "max_budget_per_task": self.max_budget_per_task,
            "accumulated_token_usage": self.accumulated_token_usage.model_dump(),
            "costs": [record.model_dump() for record in self.costs],
            "response_latencies": [record.model_dump() for record in self.response_latencies],
            "token_usages": [record.model_dump() for record in self.token_usages],
        }

    def log(self) -> str:
        """`get()` as `key: value` lines."""
        return "".join(f"{key}: {value}\n" for key, value in self.get().items())
