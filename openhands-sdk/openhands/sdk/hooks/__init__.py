"""Hooks: commands or LLM checks run at lifecycle points (Stop, PreToolUse, ...)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openhands.sdk.hooks.config import HookConfig, HookDefinition, HookMatcher, HookType
from openhands.sdk.hooks.runner import HookOutcome, HookRunner
from openhands.sdk.hooks.types import (
    BLOCK_EXIT_CODE,
    HOOK_EVENT_FIELDS,
    HookDecision,
    HookEventType,
)

if TYPE_CHECKING:
    from openhands.sdk.hooks.executor import HookResult
    from openhands.sdk.hooks.manager import HookManager


def __getattr__(name: str) -> Any:
    # The command runner's module is loaded on the first hook run.
    if name == "HookResult":
        from openhands.sdk.hooks.executor import HookResult

        return HookResult
    if name == "HookManager":
        from openhands.sdk.hooks.manager import HookManager

        return HookManager
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
