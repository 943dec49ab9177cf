"""Agent context: skills, prompt suffixes and memory that shape what the agent is told.

Skill loading, memory and the per-conversation context are imported on first use (they are
not needed to build an agent), which keeps `import openhands.sdk` cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openhands.sdk.context.agent_context import AgentContext
from openhands.sdk.context.skills import KeywordTrigger, Skill, TaskTrigger
from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from openhands.sdk.context.conversation_context import ConversationContext
    from openhands.sdk.context.memory import load_memory
    from openhands.sdk.context.skill_loading import (
        SkillValidationError,
        load_project_skills,
        load_skill,
        load_skills_from_dir,
        merge_skills_by_name,
    )
    from openhands.sdk.context.user_skills import load_user_skills

_LAZY = {
    "ConversationContext": "openhands.sdk.context.conversation_context",
    "SkillValidationError": "openhands.sdk.context.skill_loading",
    "load_memory": "openhands.sdk.context.memory",
    "load_project_skills": "openhands.sdk.context.skill_loading",
    "load_skill": "openhands.sdk.context.skill_loading",
    "load_skills_from_dir": "openhands.sdk.context.skill_loading",
    "load_user_skills": "openhands.sdk.context.user_skills",
    "merge_skills_by_name": "openhands.sdk.context.skill_loading",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


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
