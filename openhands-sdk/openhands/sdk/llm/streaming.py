"""Token streaming types: what `LLM.completion(on_token=...)` hands each chunk to.

`LLMStreamChunk` is what the native transport delivers (the OpenAI `chat.completion.chunk`
shape); litellm delivers its own `ModelResponseStream`, with the same attributes
(`chunk.choices[0].delta.content`, `.reasoning_content`, `.tool_calls`). Importing this
module does not import litellm; reading `ModelResponseStream` from it does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openhands.sdk.llm.callbacks import AsyncTokenCallbackType, TokenCallbackType
from openhands.sdk.llm.openai_compat.chunks import LLMStreamChunk

if TYPE_CHECKING:
    from litellm.types.utils import ModelResponseStream


def __getattr__(name: str) -> Any:
    if name == "ModelResponseStream":
        from openhands.sdk.llm._litellm import import_litellm

        return import_litellm().types.utils.ModelResponseStream
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AsyncTokenCallbackType",
    "LLMStreamChunk",
    "ModelResponseStream",
    "TokenCallbackType",
]
