"""Agent context: skills, prompt suffixes and memory that shape what the agent is told."""

from openhands.sdk.context.agent_context import AgentContext
from openhands.sdk.context.conversation_context import ConversationContext
from openhands.sdk.context.memory import load_memory
from openhands.sdk.context.skill_loading import (
    SkillValidationError,
    load_project_skills,
    load_skill,
    load_skills_from_dir,
    load_user_skills,
    merge_skills_by_name,
)
from openhands.sdk.context.skills import KeywordTrigger, Skill, TaskTrigger

__all__ = [
    "AgentContext",
    "ConversationContext",
    "KeywordTrigger",
    "Skill",
    "SkillValidationError",
    "TaskTrigger",
    "load_memory",
    "load_project_skills",
    "load_skill",
    "load_skills_from_dir",
    "load_user_skills",
    "merge_skills_by_name",
]
