"""Callbacks of streamed completions: their types (no litellm import: the chunk type is `Any`
here), and how a transport hands a chunk to one (`deliver`)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from openhands.sdk.errors import OpenHandsError

TokenCallbackType = Callable[[Any], None]
"""Receives each streamed chunk (an `LLMStreamChunk`, i.e. litellm's `ModelResponseStream`)."""

AsyncTokenCallbackType = Callable[[Any], Coroutine[Any, Any, None]]
"""An async callback that receives each streamed chunk."""

TokenCallback = TokenCallbackType
"""`TokenCallbackType`, as the transports name it."""


class TokenCallbackError(OpenHandsError):
    """Carries an exception raised by an `on_token` callback past the LLM error handling."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def deliver(on_token: TokenCallback, chunk: Any) -> None:
    """Hand `chunk` to the caller's callback; its failure becomes a `TokenCallbackError`."""
    try:
        on_token(chunk)
    except Exception as exc:
        raise TokenCallbackError(exc) from exc
