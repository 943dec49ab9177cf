"""`HookExecutionEvent`: one hook run (which hook, for which event, and what it decided)."""

from __future__ import annotations

from typing import Any, Literal

from openhands.sdk.event.base import Event, EventSource
from pydantic import Field

HookEventName = Literal[
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop"
]
"""The lifecycle point a hook ran at (the values of `openhands.sdk.hooks.HookEventType`)."""

MAX_HOOK_LOG_CHARS = 50_000
"""How much of a hook's stdout, stderr, reason or context an event keeps (the rest is cut)."""


class HookExecutionEvent(Event):
    """Recorded once per hook run, so clients can see what every hook did and why.

    It is not part of the LLM's history: a hook's effect reaches the agent through the event
    it acts on (a rejected tool call, the context added to a user message, Stop feedback).
    """

    source: EventSource = "hook"
    hook_event_type: HookEventName = Field(description="The lifecycle point the hook ran at.")
    hook_command: str = Field(
        description="The command, or `agent-hook:<name>` / `prompt-hook:<name>`."
    )
    tool_name: str | None = Field(default=None, description="The tool (PreToolUse/PostToolUse).")
    success: bool = Field(description="The hook ran and gave a deliberate answer.")
    blocked: bool = Field(default=False, description="It blocked the operation (exit 2 or deny).")
    exit_code: int = Field(description="The command's exit code (0 for LLM hooks).")
    stdout: str = ""
    stderr: str = ""
    reason: str | None = Field(default=None, description="The reason the hook gave, if any.")
    additional_context: str | None = Field(
        default=None, description="Context the hook added (UserPromptSubmit, Stop feedback)."
    )
    error: str | None = Field(default=None, description="Why the hook failed, if it did.")
    action_id: str | None = Field(default=None, description="The tool call's ActionEvent id.")
    message_id: str | None = Field(default=None, description="The user MessageEvent's id.")
    hook_input: dict[str, Any] | None = Field(
        default=None, description="The JSON the hook was given."
    )


def clip_hook_log(text: str | None) -> str | None:
    """`text` cut to MAX_HOOK_LOG_CHARS (a hook may print anything; the log must stay small)."""
    if text is None or len(text) <= MAX_HOOK_LOG_CHARS:
        return text
    marker = "\n<TRUNCATED>"
    return text[: MAX_HOOK_LOG_CHARS - len(marker)] + marker
