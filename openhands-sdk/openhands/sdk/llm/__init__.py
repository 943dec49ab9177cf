"""LLM access: messages, the `LLM` model, metrics and errors."""

from openhands.sdk.llm.errors import (
    LLMAuthenticationError,
    LLMBadRequestError,
    LLMConfigurationError,
    LLMError,
    LLMResponseError,
    LLMTransientError,
)
from openhands.sdk.llm.llm import LLM, LLMResponse
from openhands.sdk.llm.message import (
    ImageContent,
    Message,
    MessageToolCall,
    TextContent,
    text_message,
)
from openhands.sdk.llm.metrics import Metrics

__all__ = [
    "LLM",
    "ImageContent",
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
