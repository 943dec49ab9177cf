"""Hooks: commands or LLM checks run at lifecycle points (Stop, PreToolUse, ...)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openhands.sdk.hooks.config import HookConfig, HookDefinition, HookMatcher, HookType
from openhands.sdk.hooks.runner import HookOutcome, HookRunner
from openhands.sdk.hooks.types import (
    BLOCK_EXIT_CODE,
    HOOK_EVENT_FIELDS,
    HookDecision,
    HookEventType,
)
from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from openhands.sdk.hooks.executor import HookResult
    from openhands.sdk.hooks.manager import HookManager


# The command runner's module is loaded on the first hook run.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "HookResult": "openhands.sdk.hooks.executor",
        "HookManager": "openhands.sdk.hooks.manager",
    },
)


__all__ = [
    "BLOCK_EXIT_CODE",
    "HOOK_EVENT_FIELDS",
    "HookConfig",
    "HookDecision",
    "HookDefinition",
    "HookEventType",
    "HookManager",
    "HookMatcher",
    "HookOutcome",
    "HookResult",
    "HookRunner",
    "HookType",
]
