"""Conversation errors.

ConversationError                 base class
├── ConversationRunError          a run failed; carries conversation_id, code and detail
├── ConversationAlreadyRunningError   run() while another run is in progress
├── ConversationClosedError       send_message() or run() after close()
├── ConversationStateError        a persisted base_state.json cannot be read (also ValueError)
├── UnknownEventError             fork/navigate_to named an event that is not in the log (ValueError)
├── CondenserUnavailableError     condense() on an agent without a condenser that condenses on request (ValueError)
└── UserPromptBlockedError        a UserPromptSubmit hook refused the message (also ValueError)
"""

from __future__ import annotations

import uuid

from openhands.sdk.errors import OpenHandsError

MAX_ITERATIONS_REACHED = "MaxIterationsReached"
"""The code of a run that used up its `max_iteration_per_run` steps. Such a run ends `error`
with a ConversationErrorEvent but `run()` returns instead of raising (as in the reference)."""


class ConversationError(OpenHandsError, RuntimeError):
    """Base class of conversation errors."""


class ConversationRunError(ConversationError):
    """A run failed. `code` names the failure (e.g. the exception class), `detail` explains."""

    def __init__(self, conversation_id: uuid.UUID, code: str, detail: str) -> None:
        super().__init__(f"Conversation {conversation_id} run failed ({code}): {detail}")
        self.conversation_id = conversation_id
        self.code = code
        self.detail = detail


class ConversationAlreadyRunningError(ConversationError):
    """`run()` was called while the conversation is already running."""


class ConversationClosedError(ConversationError):
    """The conversation was closed; reopen it (same id and persistence_dir) to continue."""


class ConversationStateError(ConversationError, ValueError):
    """A persisted conversation's `base_state.json` is unreadable or not a conversation state."""


class UnknownEventError(ConversationError, ValueError):
    """An event id given to `fork(from_event_id=...)` or `navigate_to` is not in the log."""


class CondenserUnavailableError(ConversationError, ValueError):
    """`condense()` was called on a conversation whose agent has no condenser that condenses
    on request; give it an `LLMSummarizingCondenser` (`Agent(condenser=...)`).

    `code` is the machine-readable reason the agent server answers as `detail` (with a 409).
    """

    code = "no_condenser"


class UserPromptBlockedError(ConversationError, ValueError):
    """A UserPromptSubmit hook blocked the message; `feedback` is the hook's output."""

    def __init__(self, feedback: str) -> None:
        super().__init__(f"A UserPromptSubmit hook blocked the message: {feedback}")
        self.feedback = feedback
