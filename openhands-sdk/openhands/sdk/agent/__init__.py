"""Agents: an LLM plus tools, stepping a conversation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openhands.sdk.agent.agent import Agent
from openhands.sdk.agent.base import AgentBase
from openhands.sdk.agent.prompts import DEFAULT_SYSTEM_PROMPT

if TYPE_CHECKING:
    from openhands.sdk.agent.parallel_executor import DeclaredResources, ParallelToolExecutor


def __getattr__(name: str) -> Any:
    # The parallel executor is loaded when first used: most agents run one call at a time.
    if name in ("DeclaredResources", "ParallelToolExecutor"):
        from openhands.sdk.agent import parallel_executor

        return getattr(parallel_executor, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "Agent",
    "AgentBase",
    "DeclaredResources",
    "ParallelToolExecutor",
]
