"""Visualizers: objects that show a conversation's events as they happen."""

from openhands.sdk.conversation.visualizer.base import ConversationVisualizerBase

__all__ = ["ConversationVisualizerBase"]
