"""The retry policy of an LLM call: which errors are retried, how long to wait, who hears.

Imported by the transports on the first real completion (tenacity, like litellm, is never
loaded by `import openhands.sdk`).
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING

import tenacity
from openhands.sdk.llm.errors import LLMTransientError

if TYPE_CHECKING:
    from openhands.sdk.llm.settings import LLMSettings

# The name the retry log lines had before this module was split out of llm.py.
logger = logging.getLogger("openhands.sdk.llm.llm")


def retrying(llm: LLMSettings) -> tenacity.Retrying:
    """The retry policy: only `LLMTransientError` is retried, `num_retries` times at most.

    Backoff is exponential from `retry_min_wait` (growing `retry_multiplier` times per
    retry, 2 by default), capped at `retry_max_wait`, with "equal jitter": half the step
    is fixed and half is random, so waits stay within the bounds and parallel callers
    spread out.
    """
    half_min, half_max = llm.retry_min_wait / 2, llm.retry_max_wait / 2
    base = llm.retry_multiplier or 2
    return tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(LLMTransientError),
        stop=tenacity.stop_after_attempt(llm.num_retries + 1),
        wait=tenacity.wait_exponential(multiplier=half_min, max=half_max, exp_base=base)
        + tenacity.wait_random_exponential(multiplier=half_min, max=half_max, exp_base=base),
        before_sleep=functools.partial(_log_retry, llm),
        reraise=True,
    )


def _log_retry(llm: LLMSettings, state: tenacity.RetryCallState) -> None:
    error = state.outcome.exception() if state.outcome is not None else None
    cause = getattr(error, "__cause__", None) or error
    logger.warning(
        "LLM %s failed (%s); retry %d/%d in %.2fs",
        llm.model,
        type(cause).__name__,
        state.attempt_number,
        llm.num_retries,
        state.next_action.sleep if state.next_action is not None else 0.0,
    )
    if llm.retry_listener is not None:
        try:
            llm.retry_listener(state.attempt_number, llm.num_retries, error)
        except Exception as exc:  # a listener must not change how the call goes
            logger.warning("retry_listener of LLM %s raised %r", llm.model, exc)
