"""The public names of `openhands.sdk.llm` are pinned."""

from __future__ import annotations

import openhands.sdk.llm as llm


def test_public_names_are_pinned() -> None:
    assert sorted(llm.__all__) == [
        "AsyncTokenCallbackType",
        "FallbackStrategy",
        "ImageContent",
        "LLM",
        "LLMAuthenticationError",
        "LLMBadRequestError",
        "LLMCallContext",
        "LLMConfigurationError",
        "LLMError",
        "LLMModelNotFoundError",
        "LLMProfileStore",
        "LLMRegistry",
        "LLMResponse",
        "LLMResponseError",
        "LLMStreamChunk",
        "LLMTransientError",
        "LLMUnreachableError",
        "LLM_PROFILE_SCHEMA_VERSION",
        "Message",
        "MessageToolCall",
        "Metrics",
        "MetricsSnapshot",
        "ReasoningItemModel",
        "RedactedThinkingBlock",
        "RegistryEvent",
        "RouterLLM",
        "TextContent",
        "ThinkingBlock",
        "TokenCallbackType",
        "TokenUsage",
        "content_to_str",
        "text_message",
    ]
    assert all(hasattr(llm, name) for name in llm.__all__)


def test_the_stream_chunk_type_is_the_sdks_and_litellms_stays_reachable() -> None:
    from litellm.types.utils import ModelResponseStream
    from openhands.sdk.llm import streaming
    from openhands.sdk.llm.openai_compat.chunks import LLMStreamChunk

    assert llm.LLMStreamChunk is LLMStreamChunk
    assert streaming.ModelResponseStream is ModelResponseStream


def test_every_llm_error_is_an_llm_error() -> None:
    for name in (
        "LLMAuthenticationError",
        "LLMBadRequestError",
        "LLMConfigurationError",
        "LLMModelNotFoundError",
        "LLMResponseError",
        "LLMTransientError",
        "LLMUnreachableError",
    ):
        assert issubclass(getattr(llm, name), llm.LLMError)
