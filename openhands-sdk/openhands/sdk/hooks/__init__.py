"""Command hooks run at Stop, PreToolUse, PostToolUse and UserPromptSubmit."""

from openhands.sdk.hooks.config import HookConfig, HookDefinition, HookEventType, HookMatcher
from openhands.sdk.hooks.runner import BLOCK_EXIT_CODE, HookResult, HookRunner

__all__ = [
    "BLOCK_EXIT_CODE",
    "HookConfig",
    "HookDefinition",
    "HookEventType",
    "HookMatcher",
    "HookResult",
    "HookRunner",
]
