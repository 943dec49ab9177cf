"""LLM access: messages, the `LLM` model, metrics, errors, registry, routing and fallback.

The streamed chunk type, the registry, the profile store and the routers load on first use;
nothing here imports litellm (the native transport needs none; litellm loads with the first
completion of a model that goes through it).
"""

from typing import TYPE_CHECKING

from openhands.sdk.llm.callbacks import AsyncTokenCallbackType, TokenCallbackType
from openhands.sdk.llm.errors import (
    LLMAuthenticationError,
    LLMBadRequestError,
    LLMConfigurationError,
    LLMError,
    LLMModelNotFoundError,
    LLMResponseError,
    LLMTransientError,
    LLMUnreachableError,
)
from openhands.sdk.llm.llm import LLM, LLM_PROFILE_SCHEMA_VERSION
from openhands.sdk.llm.llm_response import LLMCallContext, LLMResponse
from openhands.sdk.llm.message import (
    ImageContent,
    Message,
    MessageToolCall,
    ReasoningItemModel,
    RedactedThinkingBlock,
    TextContent,
    ThinkingBlock,
    content_to_str,
    text_message,
)
from openhands.sdk.llm.metrics import Metrics
from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from openhands.sdk.llm.fallback_strategy import FallbackStrategy
    from openhands.sdk.llm.llm_profile_store import LLMProfileStore
    from openhands.sdk.llm.llm_registry import LLMRegistry, RegistryEvent
    from openhands.sdk.llm.router import RouterLLM
    from openhands.sdk.llm.streaming import LLMStreamChunk
    from openhands.sdk.llm.usage import MetricsSnapshot, TokenUsage

_LAZY = {
    "FallbackStrategy": "openhands.sdk.llm.fallback_strategy",
    "LLMProfileStore": "openhands.sdk.llm.llm_profile_store",
    "LLMRegistry": "openhands.sdk.llm.llm_registry",
    "LLMStreamChunk": "openhands.sdk.llm.streaming",
    "MetricsSnapshot": "openhands.sdk.llm.usage",
    "RegistryEvent": "openhands.sdk.llm.llm_registry",
    "RouterLLM": "openhands.sdk.llm.router",
    "TokenUsage": "openhands.sdk.llm.usage",
}
"""Names loaded on first use: they are rarely used, and every import of the SDK would pay
for their classes."""


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "LLM",
    "LLM_PROFILE_SCHEMA_VERSION",
    "AsyncTokenCallbackType",
    "FallbackStrategy",
    "ImageContent",
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
