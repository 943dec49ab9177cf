"""Hook event types and decisions: the names hook scripts and configs use."""

from __future__ import annotations

from enum import StrEnum

BLOCK_EXIT_CODE = 2
"""The exit code with which a command hook blocks the operation."""


class HookEventType(StrEnum):
    """The lifecycle points a hook can attach to (values are the names scripts receive)."""

    PRE_TOOL_USE = "PreToolUse"
    POST_TOOL_USE = "PostToolUse"
    USER_PROMPT_SUBMIT = "UserPromptSubmit"
    SESSION_START = "SessionStart"
    SESSION_END = "SessionEnd"
    STOP = "Stop"

    @property
    def field_name(self) -> str:
        """The `HookConfig` field holding this event's matchers (`pre_tool_use`, ...)."""
        return _FIELD_NAMES[self]


_FIELD_NAMES = {
    HookEventType.PRE_TOOL_USE: "pre_tool_use",
    HookEventType.POST_TOOL_USE: "post_tool_use",
    HookEventType.USER_PROMPT_SUBMIT: "user_prompt_submit",
    HookEventType.SESSION_START: "session_start",
    HookEventType.SESSION_END: "session_end",
    HookEventType.STOP: "stop",
}

HOOK_EVENT_FIELDS: frozenset[str] = frozenset(_FIELD_NAMES.values())
"""The snake_case `HookConfig` field names, one per event type."""


class HookDecision(StrEnum):
    """What a hook decided about the operation it was asked about."""

    ALLOW = "allow"
    DENY = "deny"
