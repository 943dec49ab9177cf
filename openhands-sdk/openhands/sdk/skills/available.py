"""Every skill an agent may use, gathered from where skills live, and their prompt listing."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from openhands.sdk.context.prompt_blocks import skills_xml
from openhands.sdk.context.skill_loading import load_project_skills, merge_skills_by_name
from openhands.sdk.context.skills import Skill
from openhands.sdk.context.user_skills import load_user_skills

__all__ = ["load_available_skills", "to_prompt"]


def load_available_skills(
    work_dir: str | Path | None = None,
    *,
    include_user: bool = True,
    include_project: bool = True,
    extra_skills: Iterable[Skill] = (),
) -> list[Skill]:
    """`extra_skills`, then the project's (when `work_dir` is given), then the user's
    (installed ones included); the first source wins a name."""
    skills = list(extra_skills)
    if include_project and work_dir is not None:
        skills = merge_skills_by_name(skills, load_project_skills(work_dir))
    if include_user:
        skills = merge_skills_by_name(skills, load_user_skills())
    return skills


def to_prompt(skills: Sequence[Skill]) -> str:
    """The `<available_skills>` block listing `skills` by name, description and location
    (what the agent's system prompt shows; the bodies are read on use). With no skills the
    block says so ("no available skills") rather than being empty."""
    if not skills:
        return "<available_skills>\n  no available skills\n</available_skills>"
    return skills_xml(skills)
