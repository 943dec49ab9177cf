"""`FallbackStrategy`: other LLMs (saved profiles) to try when the primary keeps failing."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from openhands.sdk.llm.errors import LLMResponseError, LLMTransientError
from openhands.sdk.llm.profile_folder import ProfileFolder
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

if TYPE_CHECKING:
    from openhands.sdk.llm.llm_response import LLMResponse
    from openhands.sdk.llm.metrics import Metrics


class FallbackLLM(Protocol):
    """What the strategy reads and sets on a fallback LLM (an `LLM` is one)."""

    model: str
    fallback_strategy: FallbackStrategy | None

    @property
    def metrics(self) -> Metrics: ...


FallbackT = TypeVar("FallbackT", bound=FallbackLLM)

logger = logging.getLogger(__name__)


class FallbackStrategy(BaseModel):
    """Profiles to try, in order, when a completion fails after all its retries.

    Only failures a retry could have fixed trigger it (`LLMTransientError`: rate limits,
    timeouts, connection errors, 5xx; and `LLMResponseError`: no usable answer). It applies
    per call: the next call starts with the primary again. A fallback's cost and tokens are
    counted on the primary LLM's metrics too. A fallback never falls back itself.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    fallback_llms: list[str] = Field(
        description="Names of saved LLM profiles (`LLMProfileStore`), tried in this order."
    )
    profile_store_dir: str | Path | None = Field(
        default=None, description="The profile folder; None: ~/.openhands/profiles."
    )

    _loaded: dict[str, Any] = PrivateAttr(default_factory=dict)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def should_fallback(self, error: BaseException) -> bool:
        """Whether `error` is one a fallback may fix."""
        return isinstance(error, LLMTransientError | LLMResponseError)

    def try_fallback(
        self,
        primary_model: str,
        primary_error: BaseException,
        primary_metrics: Metrics,
        call_fn: Callable[[FallbackT], LLMResponse],
        load: Callable[[str], FallbackT],
    ) -> LLMResponse | None:
        """The first fallback's answer (its usage merged into `primary_metrics`), or None.

        `load` builds an LLM from a profile's saved JSON (`LLM.model_validate_json`: the LLM
        that falls back names its own class, which this module does not import).
        """
        total = len(self.fallback_llms)
        for index, name in enumerate(self.fallback_llms, start=1):
            llm = self._llm(name, load)
            if llm is None:
                continue
            logger.warning(
                "LLM %s failed (%s); trying fallback %d/%d: profile %r (%s)",
                primary_model,
                type(primary_error).__name__,
                index,
                total,
                name,
                llm.model,
            )
            before = llm.metrics.deep_copy()
            saved, llm.fallback_strategy = llm.fallback_strategy, None
            try:
                response = call_fn(llm)
            except Exception as exc:
                logger.warning("Fallback profile %r (%s) failed too: %s", name, llm.model, exc)
                continue
            finally:
                llm.fallback_strategy = saved
            primary_metrics.merge(llm.metrics.diff(before))
            return response
        return None

    def _llm(self, name: str, load: Callable[[str], FallbackT]) -> FallbackT | None:
        """The LLM of profile `name`, loaded once; None (logged) if it cannot be loaded."""
        with self._lock:
            if name in self._loaded:
                return self._loaded[name]
        try:
            llm = load(ProfileFolder(self.profile_store_dir).read(name))
        except (FileNotFoundError, ValueError) as exc:
            logger.error("Fallback profile %r cannot be loaded: %s", name, exc)
            return None
        with self._lock:
            return self._loaded.setdefault(name, llm)

    def model_post_init(self, __context: Any) -> None:
        """Nothing is loaded until a fallback is needed."""
