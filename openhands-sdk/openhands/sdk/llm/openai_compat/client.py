"""Sending a prepared request over httpx, reading the answer, and naming what went wrong.

One `httpx.Client` per process (`httpx_loader.http_client`: created on the first call,
thread-safe, connections kept alive; proxies from HTTP(S)_PROXY as the OpenAI client does)
sends every native request, each with its own timeout. Failures become the `LLMError`s
litellm's would (`errors.py`): 401/403 `LLMAuthenticationError`; 408, 429, 5xx, timeouts
and connection errors `LLMTransientError` (retried by the retry policy); other 4xx
`LLMBadRequestError`; an answer that is not JSON or has no choices `LLMResponseError`. A
stream that carries an `{"error": ...}` chunk fails like an HTTP error of that code (500 if
it has none).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from openhands.sdk.llm.errors import (
    LLMError,
    LLMResponseError,
    key_rejected,
    refused,
    still_failing,
)
from openhands.sdk.llm.openai_compat.httpx_loader import http_client, import_httpx

if TYPE_CHECKING:
    import httpx
    from openhands.sdk.llm.openai_compat.request import PreparedRequest
    from openhands.sdk.llm.settings import LLMSettings
else:
    httpx = import_httpx()

DEFAULT_TIMEOUT_SECONDS = 600.0
"""The timeout of a request whose LLM has `timeout=None` (the OpenAI client's default)."""


def _timeout(request: PreparedRequest) -> httpx.Timeout:
    return httpx.Timeout(request.timeout if request.timeout else DEFAULT_TIMEOUT_SECONDS)


def post_json(llm: LLMSettings, request: PreparedRequest) -> dict[str, Any]:
    """Send a non-streaming request; its parsed JSON answer."""
    try:
        response = http_client().post(
            request.url, json=request.body, headers=request.headers, timeout=_timeout(request)
        )
    except httpx.TimeoutException:
        raise _timed_out(llm, request) from None
    except httpx.HTTPError as exc:
        raise _unreachable(llm, request, exc) from None
    if response.status_code >= 400:
        raise status_error(llm, response.status_code, _error_text(response.content))
    try:
        body = response.json()
    except ValueError:
        raise LLMResponseError(
            f"LLM {llm.model!r}: the server at {request.url} answered something that is not "
            f"JSON: {response.text[:200]!r}",
            model=llm.model,
        ) from None
    if not isinstance(body, dict):
        raise LLMResponseError(f"LLM {llm.model!r} returned no choices", model=llm.model)
    return body


def stream_chunks(llm: LLMSettings, request: PreparedRequest) -> Iterator[dict[str, Any]]:
    """Send a streaming request; yield each chunk (the JSON of each `data:` line)."""
    try:
        with http_client().stream(
            "POST",
            request.url,
            json=request.body,
            headers=request.headers,
            timeout=_timeout(request),
        ) as response:
            if response.status_code >= 400:
                raise status_error(llm, response.status_code, _error_text(response.read()))
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue  # blank separators, ": keep-alive" comments, "event:" lines
                data = line[5:].strip()
                if data == "[DONE]":
                    return
                try:
                    chunk = json.loads(data)
                except ValueError:
                    raise LLMResponseError(
                        f"LLM {llm.model!r}: a streamed chunk is not JSON: {data[:200]!r}",
                        model=llm.model,
                    ) from None
                if isinstance(chunk, dict) and chunk.get("error"):
                    raise _chunk_error(llm, chunk["error"])
                if isinstance(chunk, dict):
                    yield chunk
    except httpx.TimeoutException:
        raise _timed_out(llm, request) from None
    except httpx.HTTPError as exc:
        raise _unreachable(llm, request, exc) from None


def status_error(llm: LLMSettings, status: int, detail: str) -> LLMError:
    """The error for an HTTP error answer."""
    if status in (401, 403):
        return key_rejected(llm.model, status, detail)
    if status in (408, 429) or status >= 500:
        return still_failing(llm.model, llm.num_retries, f"HTTP {status}: {detail}")
    return refused(llm.model, status, detail)


def _chunk_error(llm: LLMSettings, error: Any) -> LLMError:
    if not isinstance(error, dict):
        return status_error(llm, 500, str(error))
    code = error.get("code")
    status = code if isinstance(code, int) and 400 <= code < 600 else 500
    message = error.get("message")
    return status_error(llm, status, message if isinstance(message, str) else json.dumps(error))


def _timed_out(llm: LLMSettings, request: PreparedRequest) -> LLMError:
    seconds = request.timeout or DEFAULT_TIMEOUT_SECONDS
    return still_failing(
        llm.model,
        llm.num_retries,
        f"no answer from {request.url} within {seconds:g} s (the LLM's timeout)",
    )


def _unreachable(llm: LLMSettings, request: PreparedRequest, exc: httpx.HTTPError) -> LLMError:
    text = str(exc) or type(exc).__name__
    if "refused" in text.lower():
        text = "connection refused"
    return still_failing(llm.model, llm.num_retries, f"cannot reach {request.url}: {text}")


def _error_text(content: bytes) -> str:
    """The provider's message from an error body (OpenAI's `{"error": {"message"}}` shape)."""
    try:
        body = json.loads(content)
    except ValueError:
        return content.decode("utf-8", "replace").strip()[:500] or "(empty answer)"
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return error["message"]
        if isinstance(error, str):
            return error
        for key in ("message", "detail"):
            if isinstance(body.get(key), str):
                return body[key]
    return json.dumps(body)[:500]


__all__ = ["DEFAULT_TIMEOUT_SECONDS", "post_json", "status_error", "stream_chunks"]
