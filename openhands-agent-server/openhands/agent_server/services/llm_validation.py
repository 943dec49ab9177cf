"""`validate_llm`: one bounded call to an LLM, to tell a UI whether a profile draft works
before it is saved (POST /api/profiles/{name}/validate).

First the SDK's preflight (`check_llm`: is the model's server there, does it take the key,
does it serve the model), then one call (no retries, no fallback LLMs) of at most
`VALIDATE_TIMEOUT_SECONDS` (or the LLM's own shorter timeout), asking for a few tokens. A
transient failure of that call (a rate limit, a timeout, a 5xx) does not say the
configuration is wrong: it passes.
"""

from __future__ import annotations

import logging

from openhands.sdk.llm import LLM, Message, TextContent
from openhands.sdk.llm.errors import LLMError, LLMTransientError
from openhands.sdk.llm.preflight import check_llm
from pydantic import BaseModel, Field

logger = logging.getLogger(__name__)

VALIDATE_TIMEOUT_SECONDS = 15.0
"""The longest a validation call waits for the model."""

ANSWER_TOKENS = 16
"""How long an answer the call asks for (a few tokens: some models refuse a limit of 1)."""


class ValidationProblem(BaseModel):
    """Why the LLM does not work: the error's class name and its message."""

    type: str
    message: str


class ValidateProfileResponse(BaseModel):
    """The answer of POST /api/profiles/{name}/validate."""

    valid: bool
    error: ValidationProblem | None = Field(default=None, description="Set when not valid.")


def validate_llm(llm: LLM) -> ValidateProfileResponse:
    """Call `llm` once (blocking) and say whether it answered; see the module docstring."""
    timeout = VALIDATE_TIMEOUT_SECONDS
    if llm.timeout is not None:
        timeout = min(timeout, llm.timeout)
    probe = llm.model_copy(
        update={
            "num_retries": 0,
            "timeout": timeout,
            "fallback_strategy": None,
            "max_output_tokens": ANSWER_TOKENS,
        }
    )
    messages = [
        Message(role="system", content=[TextContent(text="Reply with one word.")]),
        Message(role="user", content=[TextContent(text="ping")]),
    ]
    try:
        check_llm(probe, timeout=timeout, key_flag="llm.api_key")
    except LLMError as exc:
        return _invalid(exc)
    try:
        probe.completion(messages, stream=False)
    except LLMTransientError as exc:
        logger.info("LLM validation of %s: transient failure, not blocking: %s", llm.model, exc)
        return ValidateProfileResponse(valid=True)
    except LLMError as exc:
        return _invalid(exc)
    except Exception as exc:  # a misconfiguration litellm reports its own way
        return ValidateProfileResponse(
            valid=False,
            error=ValidationProblem(type=type(exc).__name__, message=str(exc) or repr(exc)),
        )
    return ValidateProfileResponse(valid=True)


def _invalid(exc: Exception) -> ValidateProfileResponse:
    return ValidateProfileResponse(
        valid=False, error=ValidationProblem(type=type(exc).__name__, message=str(exc))
    )
