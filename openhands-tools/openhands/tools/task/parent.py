"""What a delegating tool takes from the parent conversation: its LLM and its visualizer."""

from __future__ import annotations

from typing import Any

from openhands.sdk.conversation.visualizer import ConversationVisualizerBase
from openhands.sdk.llm import LLM

__all__ = ["parent_llm", "parent_visualizer", "sub_visualizer"]


def parent_llm(conversation: Any) -> LLM | None:
    """The parent agent's LLM (sub-agents share it: one metrics object, one script)."""
    llm = getattr(getattr(conversation, "agent", None), "llm", None)
    return llm if isinstance(llm, LLM) else None


def parent_visualizer(conversation: Any) -> ConversationVisualizerBase | None:
    """The visualizer the parent conversation was built with, if any."""
    for attribute in ("visualizer", "_visualizer"):
        found = getattr(conversation, attribute, None)
        if isinstance(found, ConversationVisualizerBase):
            return found
    return None


def sub_visualizer(conversation: Any, label: str) -> ConversationVisualizerBase | None:
    """A visualizer for a sub-agent named `label`, made by the parent's, if it makes one."""
    parent = parent_visualizer(conversation)
    return parent.create_sub_visualizer(label) if parent is not None else None
