"""Token streaming types: what `LLM.completion(on_token=...)` hands each chunk to.

Importing this module imports litellm (the chunk class is litellm's); `import openhands.sdk`
does not import this module.
"""

from __future__ import annotations

from openhands.sdk.llm._litellm import import_litellm
from openhands.sdk.llm.callbacks import AsyncTokenCallbackType, TokenCallbackType

ModelResponseStream = import_litellm().types.utils.ModelResponseStream
"""litellm's streamed chunk: `chunk.choices[i].delta` holds `content`, `reasoning_content`
and `tool_calls` pieces."""

LLMStreamChunk = ModelResponseStream
"""The chunk type `on_token` receives."""

__all__ = [
    "AsyncTokenCallbackType",
    "LLMStreamChunk",
    "ModelResponseStream",
    "TokenCallbackType",
]
