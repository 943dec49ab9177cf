"""The public names of `openhands.sdk.llm` are pinned."""

from __future__ import annotations

import openhands.sdk.llm as llm


def test_public_names_are_pinned() -> None:
    assert sorted(llm.__all__) == [
        "ImageContent",
        "LLM",
        "LLMAuthenticationError",
        "LLMBadRequestError",
        "LLMConfigurationError",
        "LLMError",
        "LLMResponse",
        "LLMResponseError",
        "LLMTransientError",
        "Message",
        "MessageToolCall",
        "Metrics",
        "TextContent",
        "text_message",
    ]
    assert all(hasattr(llm, name) for name in llm.__all__)


def test_every_llm_error_is_an_llm_error() -> None:
    for name in (
        "LLMAuthenticationError",
        "LLMBadRequestError",
        "LLMConfigurationError",
        "LLMResponseError",
        "LLMTransientError",
    ):
        assert issubclass(getattr(llm, name), llm.LLMError)
