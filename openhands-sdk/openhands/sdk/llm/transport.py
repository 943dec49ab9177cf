"""The seam between `LLM` and the transports that carry its chat completions.

`complete_chat(llm, request)` sends `request` (litellm keyword arguments, from
`options.chat_params`) through the native transport (`openai_compat/`, httpx) or litellm
(`litellm_chat.py`), as `routing.uses_native_transport` decides; both apply the one retry
policy (`retry_policy.py`), raise the same `LLMError`s and return an `LLMResponse`. An
`on_token` callback that raises is the caller's error: it reaches the caller unchanged,
neither classified as an LLM failure nor retried.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openhands.sdk.llm.callbacks import TokenCallback, TokenCallbackError, deliver
from openhands.sdk.llm.routing import uses_native_transport

if TYPE_CHECKING:
    from openhands.sdk.llm.llm_response import LLMResponse
    from openhands.sdk.llm.settings import LLMSettings


def complete_chat(
    llm: LLMSettings, request: dict[str, Any], *, on_token: TokenCallback | None = None
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


__all__ = ["TokenCallback", "TokenCallbackError", "complete_chat", "deliver"]
