"""The OpenHands-compatible agent SDK: LLM, tools, events, agents and conversations.

Importing this package is cheap: litellm is loaded on the first real completion, and the
pydantic models it defines at import time say `defer_build=True`, so each validator is built
on the model's first use rather than at import (a third of the import time otherwise).
"""

from typing import TYPE_CHECKING

from openhands.sdk.agent import Agent, AgentBase
from openhands.sdk.context import AgentContext
from openhands.sdk.conversation import (
    BaseConversation,
    ConversationCallbackType,
    ConversationError,
    ConversationExecutionStatus,
    ConversationRunError,
    ConversationState,
    ConversationStats,
    LocalConversation,
)
from openhands.sdk.errors import OpenHandsError, StorageError, StorageFullError
from openhands.sdk.event import (
    ActionEvent,
    AgentErrorEvent,
    ConversationErrorEvent,
    ConversationStateUpdateEvent,
    Event,
    HookExecutionEvent,
    LLMConvertibleEvent,
    MessageEvent,
    ObservationEvent,
    PauseEvent,
    SystemPromptEvent,
    UserRejectObservation,
)
from openhands.sdk.hooks import HookConfig
from openhands.sdk.llm import (
    LLM,
    LLM_PROFILE_SCHEMA_VERSION,
    ImageContent,
    LLMError,
    LLMResponse,
    Message,
    MessageToolCall,
    RedactedThinkingBlock,
    TextContent,
    ThinkingBlock,
    TokenCallbackType,
)
from openhands.sdk.logger import get_logger
from openhands.sdk.remote import Conversation, RemoteWorkspace, Workspace
from openhands.sdk.subagent import agent_definition_to_factory, register_agent
from openhands.sdk.tool import (
    Action,
    FinishTool,
    Observation,
    ThinkTool,
    Tool,
    ToolDefinition,
    ToolExecutor,
    list_registered_tools,
    register_tool,
    resolve_tool,
)
from openhands.sdk.utils.lazy import lazy_exports
from openhands.sdk.workspace import LocalWorkspace

if TYPE_CHECKING:
    from openhands.sdk.llm import (
        FallbackStrategy,
        LLMProfileStore,
        LLMRegistry,
        LLMStreamChunk,
        RegistryEvent,
        TokenUsage,
    )

if TYPE_CHECKING:
    from openhands.sdk.remote import RemoteConversation
    from openhands.sdk.settings import OpenHandsAgentSettings

# Loaded on first use, like in `openhands.sdk.llm` (rarely used classes); the remote
# conversation brings its HTTP and WebSocket clients; settings are for UIs and files.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "FallbackStrategy": "openhands.sdk.llm",
        "LLMProfileStore": "openhands.sdk.llm",
        "LLMRegistry": "openhands.sdk.llm",
        "LLMStreamChunk": "openhands.sdk.llm",
        "RegistryEvent": "openhands.sdk.llm",
        "TokenUsage": "openhands.sdk.llm",
        "RemoteConversation": "openhands.sdk.remote",
        "OpenHandsAgentSettings": "openhands.sdk.settings",
    },
)


__all__ = [
    "LLM",
    "LLM_PROFILE_SCHEMA_VERSION",
    "Action",
    "ActionEvent",
    "Agent",
    "AgentBase",
    "AgentContext",
    "AgentErrorEvent",
    "BaseConversation",
    "Conversation",
    "ConversationCallbackType",
    "ConversationError",
    "ConversationErrorEvent",
    "ConversationExecutionStatus",
    "ConversationRunError",
    "ConversationState",
    "ConversationStateUpdateEvent",
    "ConversationStats",
    "Event",
    "FallbackStrategy",
    "FinishTool",
    "HookConfig",
    "HookExecutionEvent",
    "ImageContent",
    "LLMConvertibleEvent",
    "LLMError",
    "LLMProfileStore",
    "LLMRegistry",
    "LLMResponse",
    "LLMStreamChunk",
    "LocalConversation",
    "LocalWorkspace",
    "Message",
    "MessageEvent",
    "MessageToolCall",
    "Observation",
    "ObservationEvent",
    "OpenHandsAgentSettings",
    "OpenHandsError",
    "PauseEvent",
    "RedactedThinkingBlock",
    "RegistryEvent",
    "RemoteConversation",
    "RemoteWorkspace",
    "StorageError",
    "StorageFullError",
    "SystemPromptEvent",
    "TextContent",
    "ThinkTool",
    "ThinkingBlock",
    "TokenCallbackType",
    "TokenUsage",
    "Tool",
    "ToolDefinition",
    "ToolExecutor",
    "UserRejectObservation",
    "Workspace",
    "agent_definition_to_factory",
    "get_logger",
    "list_registered_tools",
    "register_agent",
    "register_tool",
    "resolve_tool",
]
