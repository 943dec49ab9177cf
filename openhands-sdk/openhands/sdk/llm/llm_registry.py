"""`LLMRegistry`: the LLMs of one program or conversation, by `usage_id`."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from types import MappingProxyType

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.llm.llm import LLM
from pydantic import BaseModel, ConfigDict

logger = logging.getLogger(__name__)


class RegistryEvent(BaseModel):
    """Sent to the registry's subscriber when an LLM is added."""

    model_config = ConfigDict(defer_build=True, arbitrary_types_allowed=True)

    llm: LLM


class DuplicateUsageIdError(OpenHandsError, ValueError):
    """An LLM with that `usage_id` is already registered."""


class LLMNotRegisteredError(OpenHandsError, KeyError):
    """No LLM is registered under that `usage_id`."""

    def __str__(self) -> str:
        # KeyError's str() quotes its argument; this one is a sentence.
        return str(self.args[0]) if self.args else ""


class LLMRegistry:
    """Holds LLM objects by `usage_id` and gives each its own metrics.

    `get` returns the very object that was added. An LLM whose metrics object is already
    counted by another registered LLM (a `model_copy` under the same usage slot) gets fresh
    metrics when added, so no cost is counted twice.
    """

    def __init__(self, retry_listener: Callable[[int, int], None] | None = None) -> None:
        """`retry_listener` is kept for the reference SDK's signature (see `LLM.retry_listener`)."""
        self.registry_id = str(uuid.uuid4())
        self.retry_listener = retry_listener
        self._usage_to_llm: dict[str, LLM] = {}
        self.subscriber: Callable[[RegistryEvent], None] | None = None

    @property
    def usage_to_llm(self) -> MappingProxyType[str, LLM]:
        """A read-only view of the registered LLMs by usage_id."""
        return MappingProxyType(self._usage_to_llm)

    def subscribe(self, callback: Callable[[RegistryEvent], None]) -> None:
        """Call `callback` with a `RegistryEvent` for each LLM added from now on."""
        self.subscriber = callback

    def notify(self, event: RegistryEvent) -> None:
        """Tell the subscriber about `event` (its failure is logged, not raised)."""
        if self.subscriber is None:
            return
        try:
            self.subscriber(event)
        except Exception as exc:
            logger.warning("Failed to emit event: the LLM registry's subscriber raised %r", exc)

    def add(self, llm: LLM) -> None:
        """Register `llm` under its usage_id; DuplicateUsageIdError if that id is taken."""
        if llm.usage_id in self._usage_to_llm:
            raise DuplicateUsageIdError(
                f"An LLM with usage_id {llm.usage_id!r} already exists in registry; give the "
                "new one another usage_id, or get() the registered one."
            )
        if any(other.metrics is llm.metrics for other in self._usage_to_llm.values()):
            llm.reset_metrics()
        self._usage_to_llm[llm.usage_id] = llm
        self.notify(RegistryEvent(llm=llm))

    def get(self, usage_id: str) -> LLM:
        """The LLM registered under `usage_id`; LLMNotRegisteredError names the known ids."""
        llm = self._usage_to_llm.get(usage_id)
        if llm is None:
            known = ", ".join(sorted(self._usage_to_llm)) or "none"
            raise LLMNotRegisteredError(
                f"LLM with usage_id {usage_id!r} not found in registry (registered: {known}); "
                "add() it first."
            )
        return llm

    def remove(self, usage_id: str) -> None:
        """Unregister `usage_id`; a missing id is not an error."""
        self._usage_to_llm.pop(usage_id, None)

    def list_usage_ids(self) -> list[str]:
        """The registered usage_ids, in the order they were added."""
        return list(self._usage_to_llm)
