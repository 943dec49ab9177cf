"""`StepConversation`: what the agent needs from the conversation it takes a step in.

The agent sits below the conversation, so it is typed against this Protocol rather than the
concrete `LocalConversation` (which satisfies it): the conversation owns the tools, the
hooks, the approvals and the log; the agent asks the LLM and runs the calls through them.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from openhands.sdk.event.action import ActionEvent
from openhands.sdk.event.base import Event
from openhands.sdk.hooks.runner import HookRunner
from openhands.sdk.llm.llm import LLM
from openhands.sdk.llm.message import Message
from openhands.sdk.tool.tool import ToolDefinition

__all__ = ["StepConversation"]


class MessageSource(Protocol):
    """A conversation's state as the agent reads it: the messages for the next LLM call."""

    def llm_messages(self) -> list[Message]:
        """The conversation's events as LLM messages (after any condensation)."""
        ...


class LLMUsage(Protocol):
    """Where the conversation counts each LLM's cost (its `ConversationStats`)."""

    def register_llm(self, llm: LLM) -> None:
        """Count `llm`'s usage with the conversation's."""
        ...


class StepConversation(Protocol):
    """The conversation `AgentBase.step` runs in (a `LocalConversation`)."""

    @property
    def id(self) -> uuid.UUID:
        """The conversation's id (tools get the conversation too)."""
        ...

    @property
    def state(self) -> MessageSource:
        """The state the LLM's messages are read from."""
        ...

    @property
    def conversation_stats(self) -> LLMUsage:
        """Where LLM usage is counted."""
        ...

    @property
    def tools(self) -> Mapping[str, ToolDefinition]:
        """The conversation's tools by name."""
        ...

    @property
    def tool_schemas(self) -> Sequence[dict[str, Any]]:
        """The tools' schemas as sent to the LLM."""
        ...

    @property
    def hook_runner(self) -> HookRunner:
        """Runs the PreToolUse / PostToolUse hooks."""
        ...

    def append_event(self, event: Event) -> None:
        """Record `event` (and publish it)."""
        ...

    def take_approved_actions(self) -> list[ActionEvent]:
        """The calls a person approved since the last step, now to run."""
        ...

    def needs_approval(self, actions: list[ActionEvent]) -> bool:
        """Whether any of `actions` must wait for a person under the confirmation policy."""
        ...

    def wait_for_approval(self) -> None:
        """Stop the run until a person approves or rejects the waiting calls."""
        ...

    def rated(self, action: ActionEvent) -> ActionEvent:
        """`action` with the security analyzer's risk rating."""
        ...

    def wait_for_client(self) -> None:
        """Stop the run until the client answers its client-tool calls."""
        ...
