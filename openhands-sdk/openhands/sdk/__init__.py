"""The OpenHands-compatible agent SDK: LLM, tools, events, agents and conversations.

Importing this package is cheap: litellm is loaded on the first real completion, and the
pydantic models it defines at import time say `defer_build=True`, so each validator is built
on the model's first use rather than at import (a third of the import time otherwise).
"""

from openhands.sdk.agent import Agent, AgentBase
from openhands.sdk.context import AgentContext
from openhands.sdk.conversation import (
    BaseConversation,
    Conversation,
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
    ImageContent,
    LLMError,
    LLMResponse,
    Message,
    MessageToolCall,
    TextContent,
)
from openhands.sdk.logger import get_logger
from openhands.sdk.subagent import agent_definition_to_factory, register_agent
from openhands.sdk.tool import (
    Action,
    FinishTool,
    Observation,
    ThinkTool,
    Tool,
    ToolDefinition,
    ToolExecutor,
    register_tool,
    resolve_tool,
)
from openhands.sdk.workspace import LocalWorkspace, RemoteWorkspace

__all__ = [
    "LLM",
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
    "FinishTool",
    "HookConfig",
    "HookExecutionEvent",
    "ImageContent",
    "LLMConvertibleEvent",
    "LLMError",
    "LLMResponse",
    "LocalConversation",
    "LocalWorkspace",
    "Message",
    "MessageEvent",
    "MessageToolCall",
    "Observation",
    "ObservationEvent",
    "OpenHandsError",
    "PauseEvent",
    "RemoteWorkspace",
    "StorageError",
    "StorageFullError",
    "SystemPromptEvent",
    "TextContent",
    "ThinkTool",
    "Tool",
    "ToolDefinition",
    "ToolExecutor",
    "UserRejectObservation",
    "agent_definition_to_factory",
    "get_logger",
    "register_agent",
    "register_tool",
    "resolve_tool",
]
