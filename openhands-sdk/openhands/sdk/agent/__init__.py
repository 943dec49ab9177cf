"""Agents: an LLM plus tools, stepping a conversation."""

from openhands.sdk.agent.agent import Agent
from openhands.sdk.agent.base import AgentBase
from openhands.sdk.agent.parallel_executor import DeclaredResources, ParallelToolExecutor
from openhands.sdk.agent.prompts import DEFAULT_SYSTEM_PROMPT

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "Agent",
    "AgentBase",
    "DeclaredResources",
    "ParallelToolExecutor",
]
