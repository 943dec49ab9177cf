"""Errors raised by `LLM.completion`.

LLMError                      base class; carries the model name
├── LLMConfigurationError     the LLM is not set up (no model, no key): says what to set
├── LLMAuthenticationError    401/403 from the provider: says which key to fix
├── LLMBadRequestError        other 4xx: the request was refused, retrying will not help
│   └── LLMModelNotFoundError the server does not serve that model (found before any call)
├── LLMUnreachableError       the model's server refused the connection or did not answer
├── LLMTransientError         429, 5xx, timeouts, connection errors still failing after retries
└── LLMResponseError          the provider answered something we cannot use
"""

from __future__ import annotations

from openhands.sdk.errors import OpenHandsError

ENV_HELP = (
    "Set LLM_MODEL (any litellm model, e.g. 'openai/gpt-4o-mini'), LLM_API_KEY and, for a "
    "local OpenAI-compatible server, LLM_BASE_URL (e.g. 'http://127.0.0.1:8080/v1')."
)
"""How to configure an LLM from the environment (quoted by configuration errors)."""


class LLMError(OpenHandsError, RuntimeError):
    """Base class of every error raised while calling an LLM."""

    def __init__(self, message: str, *, model: str | None = None) -> None:
        super().__init__(message)
        self.model = model


class LLMConfigurationError(LLMError, ValueError):
    """The LLM is missing a setting (model, key, base URL); the message names it."""


class LLMAuthenticationError(LLMError):
    """The provider rejected the credentials (HTTP 401/403)."""


class LLMBadRequestError(LLMError):
    """The provider rejected the request with a 4xx other than auth or rate limit."""


class LLMModelNotFoundError(LLMBadRequestError):
    """The model's server lists the models it serves, and this one is not among them."""


class LLMUnreachableError(LLMError):
    """The model's server cannot be reached (connection refused, unknown host, no answer)."""


class LLMTransientError(LLMError):
    """A retryable failure (429, 5xx, timeout, connection) that persisted after all retries."""


class LLMResponseError(LLMError):
    """The provider's answer had no usable message."""


# -- the messages, shared by both transports so a failure reads the same whichever sent it ----


def key_rejected(model: str, status: int | None, detail: str) -> LLMAuthenticationError:
    """HTTP 401/403 from the provider."""
    return LLMAuthenticationError(
        f"The provider rejected the API key for model {model!r} (HTTP {status or 401}). "
        f"Check LLM_API_KEY (the `api_key` field). {detail}",
        model=model,
    )


def key_missing(model: str, detail: str) -> LLMAuthenticationError:
    """No key was configured; nothing was sent."""
    return LLMAuthenticationError(
        f"No API key for model {model!r}: set LLM_API_KEY (the `api_key` field) or the "
        f"provider's own key variable. {detail}",
        model=model,
    )


def still_failing(model: str, retries: int, detail: str) -> LLMTransientError:
    """A retryable failure (429, 5xx, timeout, connection) that outlived the retries."""
    return LLMTransientError(
        f"LLM {model!r} kept failing after {retries} retries: {detail}", model=model
    )


def refused(model: str, status: int | None, detail: str, hint: str = "") -> LLMBadRequestError:
    """Any other 4xx: the request itself was refused."""
    return LLMBadRequestError(
        f"LLM {model!r} refused the request (HTTP {status}): {detail}{hint}", model=model
    )


DROP_PARAMS_HINT = " Set drop_params=True on the LLM to leave out what the provider refuses."
"""Added to a refusal caused by an option the provider does not take."""
