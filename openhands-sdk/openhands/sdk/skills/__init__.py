"""Skills: the AgentSkills format, loading from folders, and installing from sources.

A skill is guidance for the agent. An AgentSkills skill is a folder with `SKILL.md` (YAML
front matter `name` and `description`, then its instructions) and optional `scripts/`,
`references/` and `assets/`; the agent is told each skill's name, description and location
and reads the rest when it uses it (progressive disclosure). See docs/skills.md.

- the model and loading: `Skill`, `SkillResources`, `load_skills_from_dir`,
  `load_project_skills`, `load_user_skills`, `load_available_skills`,
  `merge_skills_by_name`, `to_prompt`;
- triggers: `KeywordTrigger`, `TaskTrigger`;
- installing: `install_skill`, `update_skill`, `uninstall_skill`, `list_installed_skills`,
  `load_installed_skills`, `enable_skill`, `disable_skill`, `get_installed_skill`,
  `install_skills_from_marketplace`;
- the layout: `discover_skill_resources`, `RESOURCE_DIRECTORIES`, `validate_skill_name`.

Names load on first use (this package is not imported by `import openhands.sdk`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openhands.sdk.utils.lazy import lazy_exports

if TYPE_CHECKING:
    from openhands.sdk.context.skill_loading import (
        SkillError,
        SkillValidationError,
        load_project_skills,
        load_skill,
        load_skills_from_dir,
        merge_skills_by_name,
    )
    from openhands.sdk.context.skills import KeywordTrigger, Skill, SkillResources, TaskTrigger
    from openhands.sdk.context.user_skills import load_user_skills
    from openhands.sdk.skills.available import load_available_skills, to_prompt
    from openhands.sdk.skills.fetch import (
        SkillFetchError,
        fetch_skill,
        fetch_skill_with_resolution,
    )
    from openhands.sdk.skills.installed import (
        InstalledSkillInfo,
        disable_skill,
        enable_skill,
        get_installed_skill,
        get_installed_skills_dir,
        install_skill,
        install_skills_from_marketplace,
        list_installed_skills,
        load_installed_skills,
        uninstall_skill,
        update_skill,
    )
    from openhands.sdk.skills.resources import (
        RESOURCE_DIRECTORIES,
        discover_skill_resources,
        find_skill_md,
        validate_skill_name,
    )

_LAZY = {
    "KeywordTrigger": "openhands.sdk.context.skills",
    "Skill": "openhands.sdk.context.skills",
    "SkillResources": "openhands.sdk.context.skills",
    "TaskTrigger": "openhands.sdk.context.skills",
    "SkillError": "openhands.sdk.context.skill_loading",
    "SkillValidationError": "openhands.sdk.context.skill_loading",
    "load_project_skills": "openhands.sdk.context.skill_loading",
    "load_skill": "openhands.sdk.context.skill_loading",
    "load_skills_from_dir": "openhands.sdk.context.skill_loading",
    "load_user_skills": "openhands.sdk.context.user_skills",
    "merge_skills_by_name": "openhands.sdk.context.skill_loading",
    "load_available_skills": "openhands.sdk.skills.available",
    "to_prompt": "openhands.sdk.skills.available",
    "SkillFetchError": "openhands.sdk.skills.fetch",
    "fetch_skill": "openhands.sdk.skills.fetch",
    "fetch_skill_with_resolution": "openhands.sdk.skills.fetch",
    "InstalledSkillInfo": "openhands.sdk.skills.installed",
    "disable_skill": "openhands.sdk.skills.installed",
    "enable_skill": "openhands.sdk.skills.installed",
    "get_installed_skill": "openhands.sdk.skills.installed",
    "get_installed_skills_dir": "openhands.sdk.skills.installed",
    "install_skill": "openhands.sdk.skills.installed",
    "install_skills_from_marketplace": "openhands.sdk.skills.installed",
    "list_installed_skills": "openhands.sdk.skills.installed",
    "load_installed_skills": "openhands.sdk.skills.installed",
    "uninstall_skill": "openhands.sdk.skills.installed",
    "update_skill": "openhands.sdk.skills.installed",
    "RESOURCE_DIRECTORIES": "openhands.sdk.skills.resources",
    "discover_skill_resources": "openhands.sdk.skills.resources",
    "find_skill_md": "openhands.sdk.skills.resources",
    "validate_skill_name": "openhands.sdk.skills.resources",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "RESOURCE_DIRECTORIES",
    "InstalledSkillInfo",
    "KeywordTrigger",
    "Skill",
    "SkillError",
    "SkillFetchError",
    "SkillResources",
    "SkillValidationError",
    "TaskTrigger",
    "disable_skill",
    "discover_skill_resources",
    "enable_skill",
    "fetch_skill",
    "fetch_skill_with_resolution",
    "find_skill_md",
    "get_installed_skill",
    "get_installed_skills_dir",
    "install_skill",
    "install_skills_from_marketplace",
    "list_installed_skills",
    "load_available_skills",
    "load_installed_skills",
    "load_project_skills",
    "load_skill",
    "load_skills_from_dir",
    "load_user_skills",
    "merge_skills_by_name",
    "to_prompt",
    "uninstall_skill",
    "update_skill",
    "validate_skill_name",
]
