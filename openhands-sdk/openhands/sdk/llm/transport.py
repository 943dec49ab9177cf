"""The seam between `LLM` and the transports that carry its chat completions.

`complete_chat(llm, request)` sends `request` (litellm keyword arguments, from
`options.chat_params`) through the native transport (`openai_compat/`, httpx) or litellm
(`litellm_chat.py`), as `routing.uses_native_transport` decides; both apply the one retry
policy (`retry_policy.py`), raise the same `LLMError`s and return an `LLMResponse`. An
`on_token` callback that raises is the caller's error: it reaches the caller unchanged,
neither classified as an LLM failure nor retried.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from openhands.sdk.errors import OpenHandsError
from openhands.sdk.llm.routing import uses_native_transport

if TYPE_CHECKING:
    from openhands.sdk.llm.llm import LLM
    from openhands.sdk.llm.llm_response import LLMResponse

TokenCallback = Callable[[Any], None]


def complete_chat(
    llm: LLM, request: dict[str, Any], *, on_token: TokenCallback | None = None
) -> LLMResponse:
    """Send `request` with `llm`'s retry policy and parse the answer.

    When the request streams, `on_token` gets every chunk as it arrives.
    """
    try:
        if uses_native_transport(llm):
            from openhands.sdk.llm.openai_compat.call import complete_native

            return complete_native(llm, request, on_token=on_token, deliver=deliver)
        from openhands.sdk.llm.litellm_chat import complete_litellm

        return complete_litellm(llm, request, on_token=on_token)
    except TokenCallbackError as failed:
        raise failed.error from failed.error.__cause__


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


__all__ = ["TokenCallback", "TokenCallbackError", "complete_chat", "deliver"]
