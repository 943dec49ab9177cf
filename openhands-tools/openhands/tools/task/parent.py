"""What a delegating tool takes from the parent conversation: its LLM and its visualizer."""

from __future__ import annotations

from openhands.sdk.conversation.base import BaseConversation
from openhands.sdk.conversation.visualizer import ConversationVisualizerBase
from openhands.sdk.llm import LLM

__all__ = ["parent_llm", "parent_visualizer", "sub_visualizer"]


def parent_llm(conversation: BaseConversation | None) -> LLM | None:
    """The parent agent's LLM (sub-agents share it: one metrics object, one script)."""
    return conversation.agent.llm if conversation is not None else None


def parent_visualizer(conversation: BaseConversation | None) -> ConversationVisualizerBase | None:
    """The visualizer the parent conversation was built with, if any (only a conversation in
    this process shows its events here)."""
    # Imported when asked: the local conversation brings the default visualizer (rich).
    from openhands.sdk.conversation.local import LocalConversation

    return conversation.visualizer if isinstance(conversation, LocalConversation) else None


def sub_visualizer(
    conversation: BaseConversation | None, label: str
) -> ConversationVisualizerBase | None:
    """A visualizer for a sub-agent named `label`, made by the parent's, if it makes one."""
    parent = parent_visualizer(conversation)
    return parent.create_sub_visualizer(label) if parent is not None else None
