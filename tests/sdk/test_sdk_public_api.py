"""The public surface of `openhands.sdk` is pinned: changing it must be deliberate."""

from __future__ import annotations

import importlib

import openhands.sdk as sdk
import pytest

PUBLIC_NAMES = [
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

# Where each name is defined publicly (the re-export must be that same object).
HOME_MODULES = {
    "openhands.sdk.agent": ["Agent", "AgentBase"],
    "openhands.sdk.context": ["AgentContext"],
    "openhands.sdk.conversation": [
        "BaseConversation",
        "ConversationCallbackType",
        "ConversationError",
        "ConversationExecutionStatus",
        "ConversationRunError",
        "ConversationState",
        "ConversationStats",
        "LocalConversation",
    ],
    "openhands.sdk.errors": ["OpenHandsError", "StorageError", "StorageFullError"],
    "openhands.sdk.event": [
        "ActionEvent",
        "AgentErrorEvent",
        "ConversationErrorEvent",
        "ConversationStateUpdateEvent",
        "Event",
        "HookExecutionEvent",
        "LLMConvertibleEvent",
        "MessageEvent",
        "ObservationEvent",
        "PauseEvent",
        "SystemPromptEvent",
        "UserRejectObservation",
    ],
    "openhands.sdk.hooks": ["HookConfig"],
    "openhands.sdk.logger": ["get_logger"],
    "openhands.sdk.subagent": ["agent_definition_to_factory", "register_agent"],
    "openhands.sdk.llm": [
        "LLM",
        "LLM_PROFILE_SCHEMA_VERSION",
        "FallbackStrategy",
        "ImageContent",
        "LLMError",
        "LLMProfileStore",
        "LLMRegistry",
        "LLMResponse",
        "LLMStreamChunk",
        "Message",
        "MessageToolCall",
        "RedactedThinkingBlock",
        "RegistryEvent",
        "TextContent",
        "ThinkingBlock",
        "TokenCallbackType",
        "TokenUsage",
    ],
    "openhands.sdk.tool": [
        "Action",
        "FinishTool",
        "Observation",
        "ThinkTool",
        "Tool",
        "ToolDefinition",
        "ToolExecutor",
        "list_registered_tools",
        "register_tool",
        "resolve_tool",
    ],
    "openhands.sdk.workspace": ["LocalWorkspace"],
    "openhands.sdk.remote": ["Conversation", "RemoteConversation", "RemoteWorkspace", "Workspace"],
    "openhands.sdk.settings": ["OpenHandsAgentSettings"],
}


def _isort_key(name: str) -> tuple[int, str]:
    """Constants (ALL_CAPS), then classes, then functions: the order ruff keeps `__all__` in."""
    if name.isupper():
        return (0, name)
    return (1 if name[0].isupper() else 2, name)


def test_exported_names_are_pinned() -> None:
    assert sdk.__all__ == PUBLIC_NAMES


def test_exported_names_are_sorted() -> None:
    assert sdk.__all__ == sorted(sdk.__all__, key=_isort_key)


def test_every_home_module_name_is_exported() -> None:
    assert sorted(name for names in HOME_MODULES.values() for name in names) == sorted(PUBLIC_NAMES)


@pytest.mark.parametrize(
    ("module", "name"),
    [(module, name) for module, names in HOME_MODULES.items() for name in names],
)
def test_each_name_is_importable_from_its_module_and_the_package(module: str, name: str) -> None:
    home = importlib.import_module(module)

    assert name in home.__all__
    assert getattr(sdk, name) is getattr(home, name)


def test_subpackage_exports_are_sorted_and_importable() -> None:
    for module in HOME_MODULES:
        home = importlib.import_module(module)
        assert home.__all__ == sorted(home.__all__, key=_isort_key), module
        for name in home.__all__:
            assert hasattr(home, name), f"{module}.{name}"
