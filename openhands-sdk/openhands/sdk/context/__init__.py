"""Agent context: skills, prompt suffixes and memory that shape what the agent is told."""

from openhands.sdk.context.agent_context import AgentContext
from openhands.sdk.context.skills import KeywordTrigger, Skill, TaskTrigger

__all__ = ["AgentContext", "KeywordTrigger", "Skill", "TaskTrigger"]
