"""A quick look at a model's server before any work starts: is it there, does it take the
key, does it serve the model?

`check_llm(llm)` costs one `GET <base_url>/models` (no tokens) for an OpenAI-compatible
endpoint (`base_url` set), and nothing for a provider without one except checking that a key
is configured. It raises what a first round would only have found after its retries, with
the URL and the cause in the message: the model's name gives no provider the calls can go to
(`LLMConfigurationError`: a name without a prefix that litellm does not know), an
OpenAI-compatible endpoint gets no key at all (`LLMConfigurationError`: its client refuses to
send a request without one, even to a server that checks none), the server refused the
connection or did not answer (`LLMUnreachableError`), it refused the key
(`LLMAuthenticationError`), or it lists models and this one is not among them
(`LLMModelNotFoundError`). Anything else (no model list, a server error) is not a verdict:
the check passes and the first call tells.

The messages name where each setting comes from in the caller's words (`key_flag`,
`model_flag`, `url_flag`): the command's flags by default, a form's fields on the web page.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from openhands.sdk.llm.errors import (
    LLMAuthenticationError,
    LLMConfigurationError,
    LLMModelNotFoundError,
    LLMUnreachableError,
)
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.openai_compat.httpx_loader import import_httpx

if TYPE_CHECKING:
    import httpx
else:
    httpx = import_httpx()  # without its command line (click, rich): see httpx_loader

logger = logging.getLogger(__name__)

CHECK_TIMEOUT_SECONDS = 10.0
"""How long the check waits for the model's server."""

MAX_LISTED = 12
"""How many of the served models an unknown-model message names."""

# Where a provider without a base URL looks for its key when `api_key` is not set.
_PROVIDER_KEYS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "xai": "XAI_API_KEY",
}


MODEL_FLAG = "LLM_MODEL / --model"
URL_FLAG = "LLM_BASE_URL / --base-url"


def check_llm(
    llm: LLM,
    *,
    timeout: float = CHECK_TIMEOUT_SECONDS,
    key_flag: str = "LLM_API_KEY",
    model_flag: str = MODEL_FLAG,
    url_flag: str = URL_FLAG,
) -> None:
    """Raise a clear `LLMError` when `llm` certainly cannot work (see the module docstring).

    `key_flag`, `model_flag` and `url_flag` name where its key, model and base URL come from
    in the caller's words (flags, variables or a form's fields).
    """
    _check_provider(llm, model_flag)
    if llm.base_url is None:
        _check_provider_key(llm, key_flag)
        return
    _check_endpoint_key(llm, key_flag)
    url = llm.base_url.rstrip("/") + "/models"
    headers = {"Accept": "application/json"}
    if llm.api_key is not None:
        headers["Authorization"] = f"Bearer {llm.api_key.get_secret_value()}"
    try:
        response = httpx.get(url, headers=headers, timeout=timeout, follow_redirects=True)
    except httpx.ConnectError as exc:
        raise LLMUnreachableError(
            f"Cannot reach the model's server at {llm.base_url}: {_cause(exc)}. Is it running, "
            f"and is the base URL right ({url_flag})?",
            model=llm.model,
        ) from None
    except httpx.TimeoutException:
        raise LLMUnreachableError(
            f"The model's server at {llm.base_url} did not answer within {timeout:g} s. Is "
            f"the base URL right ({url_flag})?",
            model=llm.model,
        ) from None
    except httpx.HTTPError as exc:
        raise LLMUnreachableError(
            f"Cannot talk to the model's server at {llm.base_url}: {exc}. Check the base URL "
            f"({url_flag}).",
            model=llm.model,
        ) from None
    if response.status_code in (401, 403):
        given = "no API key was given" if llm.api_key is None else "it refused the API key"
        raise LLMAuthenticationError(
            f"The model's server at {llm.base_url} answered HTTP {response.status_code}: "
            f"{given} ({_error_text(response)}). Set {key_flag}.",
            model=llm.model,
        )
    if response.status_code != 200:
        logger.debug("no model list at %s (HTTP %s): not checked", url, response.status_code)
        return
    served = _model_ids(response)
    if served and not _is_served(llm.model, served):
        listed = ", ".join(sorted(served)[:MAX_LISTED])
        more = f" and {len(served) - MAX_LISTED} more" if len(served) > MAX_LISTED else ""
        raise LLMModelNotFoundError(
            f"The model's server at {llm.base_url} does not serve model {llm.model!r} (it "
            f"serves {listed}{more}). Check the model name ({model_flag}; an "
            "OpenAI-compatible server's model is named 'openai/<model>').",
            model=llm.model,
        )


def _check_provider(llm: LLM, model_flag: str) -> None:
    """A name without a provider prefix must be one the calls can go to: sent by the native
    transport (an OpenAI-compatible `base_url`, or an OpenAI model name) or one litellm knows
    (`claude-...` is not), else no call can be sent: say which name to give instead."""
    if "/" in llm.model or llm.custom_llm_provider:
        return
    from openhands.sdk.llm.routing import uses_native_transport

    if uses_native_transport(llm):
        return
    from openhands.sdk.llm.model_table import table_provider

    # litellm's own table of models, read as data (importing litellm costs seconds).
    if table_provider(llm.model) is not None:
        return
    if llm.base_url is not None:
        fix = (
            f"the model of the OpenAI-compatible server at {llm.base_url} is named "
            f"'openai/{llm.model}'"
        )
    else:
        fix = (
            f"name it with its provider, e.g. 'openai/{llm.model}' or 'anthropic/{llm.model}' "
            f"(with an OpenAI-compatible server's base URL: 'openai/{llm.model}')"
        )
    raise LLMConfigurationError(
        f"Model {llm.model!r} names no provider: {fix} ({model_flag}).", model=llm.model
    )


def _check_endpoint_key(llm: LLM, key_flag: str) -> None:
    """The OpenAI client refuses to send a request without a key, even to a server that
    checks none: a missing key fails every call, so it is named before any."""
    provider = llm.custom_llm_provider or (
        llm.model.split("/", 1)[0] if "/" in llm.model else "openai"
    )
    if provider != "openai" or llm.api_key is not None or os.environ.get("OPENAI_API_KEY"):
        return
    raise LLMConfigurationError(
        f"No API key for model {llm.model!r} at {llm.base_url}: the OpenAI client sends none "
        f"and refuses to start without one. Set {key_flag} (any value, e.g. 'none', for a "
        "server that checks no key).",
        model=llm.model,
    )


def _check_provider_key(llm: LLM, key_flag: str) -> None:
    if llm.api_key is not None:
        return
    provider = llm.model.split("/", 1)[0] if "/" in llm.model else "openai"
    variable = _PROVIDER_KEYS.get(provider)
    if variable is not None and not os.environ.get(variable):
        raise LLMConfigurationError(
            f"No API key for model {llm.model!r}: set {key_flag} (or {variable}).",
            model=llm.model,
        )


def _cause(exc: httpx.ConnectError) -> str:
    text = str(exc)
    if "refused" in text.lower():
        return "connection refused"
    if "name or service not known" in text.lower() or "nodename" in text.lower():
        return "unknown host name"
    return text or type(exc).__name__


def _error_text(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:300] or response.reason_phrase
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        return body["detail"]
    return response.reason_phrase


def _model_ids(response: httpx.Response) -> set[str]:
    try:
        body = response.json()
    except ValueError:
        return set()
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return set()
    return {str(item["id"]) for item in data if isinstance(item, dict) and "id" in item}


def _is_served(model: str, served: set[str]) -> bool:
    """Whether `model` (a litellm name, maybe with a provider prefix) is in the list."""
    names = {model}
    if "/" in model:
        names.add(model.split("/", 1)[1])
    return bool(names & served)


__all__ = ["CHECK_TIMEOUT_SECONDS", "MODEL_FLAG", "URL_FLAG", "check_llm"]
