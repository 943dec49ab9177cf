"""`ConversationStats`: the LLM usage of one conversation, per `usage_id` (agent, judge, ...).

Every LLM the conversation uses is registered (`register_llm`): the conversation's agent
automatically, others (a goal judge with usage_id "goal-judge", a condenser) by whoever uses
them. The stats then hold each LLM's live `Metrics`, so they are always current. They are
persisted with the conversation (see docs/architecture.md, "Persistence") and, on reopen,
a registered LLM that has not counted anything yet takes over the saved counts.
"""

from __future__ import annotations

from typing import Any, Protocol

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.metrics import Metrics
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

__all__ = ["ConversationStats", "UnknownUsageIdError"]


class UnknownUsageIdError(OpenHandsError, LookupError):
    """No LLM with that usage_id was registered with the conversation."""


class _HasLLM(Protocol):
    """A registry notification carrying the LLM that was created (e.g. `RegistryEvent`)."""

    @property
    def llm(self) -> LLM: ...


class ConversationStats(BaseModel):
    """Cost and token counts of every LLM a conversation used, keyed by `usage_id`."""

    model_config = ConfigDict(defer_build=True)

    usage_to_metrics: dict[str, Metrics] = Field(
        default_factory=dict, description="The metrics of each registered LLM, by usage_id."
    )

    _restored: set[str] = PrivateAttr(default_factory=set)

    def register_llm(self, llm: LLM | _HasLLM) -> None:
        """Count `llm`'s usage here from now on (an `LLM`, or an event carrying one in `.llm`).

        If this conversation saved counts for that usage_id and the LLM has counted nothing
        yet, the LLM continues from the saved counts (once per usage_id). An LLM object that
        already counted calls (one shared with another conversation) keeps its own counts.
        """
        model = llm if isinstance(llm, LLM) else llm.llm
        usage_id = model.usage_id
        live = model.metrics
        saved = self.usage_to_metrics.get(usage_id)
        if saved is live:
            return
        if saved is not None and usage_id not in self._restored and not live.completions:
            _copy_counts(saved, live)
        self._restored.add(usage_id)
        self.usage_to_metrics[usage_id] = live

    def get_metrics_for_usage(self, usage_id: str) -> Metrics:
        """The metrics of the LLM registered under `usage_id`."""
        metrics = self.usage_to_metrics.get(usage_id)
        if metrics is None:
            known = ", ".join(sorted(self.usage_to_metrics)) or "none"
            raise UnknownUsageIdError(
                f"No LLM with usage_id {usage_id!r} was used in this conversation (known: "
                f"{known}); register it with conversation_stats.register_llm(llm) first."
            )
        return metrics

    def get_combined_metrics(self) -> Metrics:
        """The sum over every registered LLM (cost, tokens, completions)."""
        total = Metrics(usage_id="combined")
        for metrics in list(self.usage_to_metrics.values()):
            for name in type(total).model_fields:
                mine, theirs = getattr(total, name), getattr(metrics, name)
                if isinstance(mine, int | float) and not isinstance(mine, bool):
                    setattr(total, name, mine + theirs)
                elif isinstance(mine, list):
                    setattr(total, name, [*mine, *theirs])
        return total

    def fingerprint(self) -> tuple[tuple[str, int, float], ...]:
        """A cheap value that changes whenever any registered LLM counts a call."""
        return tuple(
            (usage_id, metrics.completions, metrics.accumulated_cost)
            for usage_id, metrics in sorted(self.usage_to_metrics.items())
        )


def _copy_counts(source: Metrics, target: Metrics) -> None:
    """Carry every counter of `source` into `target` (which keeps its usage_id)."""
    values: dict[str, Any] = {
        name: getattr(source, name) for name in type(source).model_fields if name != "usage_id"
    }
    for name, value in values.items():
        setattr(target, name, value)
