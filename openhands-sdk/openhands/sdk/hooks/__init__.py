"""Hooks: commands or LLM checks run at lifecycle points (Stop, PreToolUse, ...)."""

from openhands.sdk.hooks.config import HookConfig, HookDefinition, HookMatcher, HookType
from openhands.sdk.hooks.executor import HookResult
from openhands.sdk.hooks.runner import BLOCK_EXIT_CODE, HookOutcome, HookRunner
from openhands.sdk.hooks.types import HOOK_EVENT_FIELDS, HookDecision, HookEventType

__all__ = [
    "BLOCK_EXIT_CODE",
    "HOOK_EVENT_FIELDS",
    "HookConfig",
    "HookDecision",
    "HookDefinition",
    "HookEventType",
    "HookMatcher",
    "HookOutcome",
    "HookResult",
    "HookRunner",
    "HookType",
]
