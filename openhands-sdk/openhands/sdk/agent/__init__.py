"""Agents: an LLM plus tools, stepping a conversation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openhands.sdk.agent.agent import Agent
from openhands.sdk.agent.base import AgentBase
from openhands.sdk.agent.prompts import DEFAULT_SYSTEM_PROMPT
from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from openhands.sdk.agent.parallel_executor import DeclaredResources, ParallelToolExecutor


# The parallel executor is loaded when first used: most agents run one call at a time.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "DeclaredResources": "openhands.sdk.agent.parallel_executor",
        "ParallelToolExecutor": "openhands.sdk.agent.parallel_executor",
    },
)


__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "Agent",
    "AgentBase",
    "DeclaredResources",
    "ParallelToolExecutor",
]
