"""`BaseConversation`: what local and remote conversations have in common."""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Self

from openhands.sdk.contracts import (
    ConversationExecutionStatus,
    ConversationStateView,
    WorkspaceView,
)
from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.llm.message import Message, TextContent

if TYPE_CHECKING:
    from openhands.sdk.agent.agent import AgentBase
    from openhands.sdk.conversation.conversation_stats import ConversationStats
    from openhands.sdk.event.action import ActionEvent
    from openhands.sdk.llm.llm import LLM
    from openhands.sdk.secret.secrets import SecretValue
    from openhands.sdk.security.analyzer import SecurityAnalyzerBase
    from openhands.sdk.security.confirmation_policy import ConfirmationPolicyBase


def as_user_message(message: str | Message) -> Message:
    """Accept a plain string or a `Message` and return a user `Message`."""
    if isinstance(message, Message):
        if message.role != "user":
            raise InvalidArgumentError(
                f"send_message takes a user message, got role {message.role!r}"
            )
        return message
    if not isinstance(message, str) or not message.strip():
        raise InvalidArgumentError("message must be a non-blank string or a Message")
    return Message(role="user", content=[TextContent(text=message)])


def as_conversation_id(value: uuid.UUID | str | None) -> uuid.UUID | None:
    """Accept a UUID or its string form (with or without dashes); None stays None."""
    if value is None or isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise InvalidArgumentError(
            f"conversation_id must be a UUID or its string form, got {value!r}; "
            "omit it to get a new one."
        ) from None


class BaseConversation(ABC):
    """A conversation between a user and an agent, run locally or on a server."""

    @property
    @abstractmethod
    def id(self) -> uuid.UUID:
        """The conversation id."""

    @property
    @abstractmethod
    def state(self) -> ConversationStateView:
        """The conversation state: `state.events` is the history, `state.execution_status`."""

    @property
    @abstractmethod
    def agent(self) -> AgentBase:
        """The agent driving this conversation (its `llm.metrics` hold the agent's cost)."""

    @property
    @abstractmethod
    def workspace(self) -> WorkspaceView:
        """Where the agent works (`working_dir`)."""

    @property
    @abstractmethod
    def conversation_stats(self) -> ConversationStats:
        """LLM cost and token usage per usage_id (`get_combined_metrics()` sums them)."""

    @abstractmethod
    def send_message(self, message: str | Message, sender: str | None = None) -> None:
        """Append a user message (it is read by the agent on its next step). `sender` names
        who wrote it when that is not the person (e.g. "goal": the goal loop's follow-ups)."""

    @abstractmethod
    def run(self) -> None:
        """Run the agent until it finishes, pauses, errors, gets stuck or hits the step cap."""

    @abstractmethod
    def pause(self) -> None:
        """Ask a running conversation to stop after its current step."""

    async def arun(self) -> None:
        """`run()` for asyncio code: it runs in a worker thread, the event loop stays free."""
        import asyncio  # not at import time: it costs ~20 ms

        await asyncio.get_running_loop().run_in_executor(None, self.run)

    def interrupt(self) -> None:
        """Stop the run as soon as possible (here: `pause()`; a local conversation cuts the
        current step short)."""
        self.pause()

    # -- human approval (docs/confirmation.md) ---------------------------------------------------

    @abstractmethod
    def set_confirmation_policy(self, policy: ConfirmationPolicyBase) -> None:
        """Choose which tool calls wait for approval; `run()` approves waiting calls."""

    @abstractmethod
    def set_security_analyzer(self, analyzer: SecurityAnalyzerBase | None) -> None:
        """Choose what rates each tool call's risk for the confirmation policy."""

    @abstractmethod
    def reject_pending_actions(self, reason: str = "User rejected the action.") -> None:
        """Reject the calls that wait for approval (the agent reads `reason`)."""

    @property
    def pending_actions(self) -> list[ActionEvent]:
        """The tool calls waiting for approval (empty unless `waiting_for_confirmation`)."""
        from openhands.sdk.conversation.confirmation import unmatched_actions

        state = self.state
        if state.execution_status != ConversationExecutionStatus.WAITING_FOR_CONFIRMATION:
            return []
        return unmatched_actions(state.events)

    # -- what changes or asks about the conversation besides runs (the reference's names) ----

    @abstractmethod
    def update_secrets(self, secrets: Mapping[str, SecretValue]) -> None:
        """Add or replace secrets: a terminal command naming `$NAME` gets the value, masked in
        its output."""

    @abstractmethod
    def navigate_to(self, event_id: str | None) -> None:
        """Move the HEAD of the event tree: the next event follows `event_id` (None: an empty
        tree); nothing is deleted."""

    @abstractmethod
    def condense(self) -> None:
        """Condense the history now with the agent's condenser."""

    @abstractmethod
    def ask_agent(self, question: str) -> str:
        """The agent's LLM's answer to `question` about the conversation; nothing recorded."""

    @abstractmethod
    def generate_title(self, llm: LLM | None = None, max_length: int = 50) -> str:
        """A short title from the first user message (does not set it)."""

    @abstractmethod
    def switch_llm(self, llm: LLM) -> None:
        """Drive the agent with `llm` from its next LLM call on."""

    @abstractmethod
    def switch_profile(self, profile_name: str) -> None:
        """Drive the agent with the LLM stored as profile `profile_name`."""

    @abstractmethod
    def close(self) -> None:
        """Release resources (files, processes, connections)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
