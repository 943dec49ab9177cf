"""The skills of the user: their skills folders, and the skills installed for them.

Installed skills are AgentSkills folders copied into `~/.openhands/skills/installed/` by
`openhands.sdk.skills.install_skill`, with an `.installed.json` saying which are enabled
(`openhands.sdk.extensions.installation`). Reading them is part of loading the user's skills
(`AgentContext(load_user_skills=True)`), so it lives here; installing them (fetching a source)
is the skills package's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from openhands.sdk.context.skill_loading import (
    SKILLS_SUBDIRS,
    SkillValidationError,
    gather_skills_from_dirs,
    load_skill,
)
from openhands.sdk.context.skill_resources import find_skill_md
from openhands.sdk.context.skills import Skill
from openhands.sdk.extensions.installation import InstallationManager, LoadedExtension

__all__ = [
    "get_installed_skills_dir",
    "load_installed_skills",
    "load_skill_folder",
    "load_user_skills",
    "skill_installation",
]

Fetch = Callable[[str, str | None, str | None, bool], tuple[Path, str | None]]
"""`fetch(source, ref, repo_path, update)`: the folder of a source and the commit fetched."""


def get_installed_skills_dir() -> Path:
    """The default install folder: `~/.openhands/skills/installed/`."""
    return Path.home() / ".openhands" / "skills" / "installed"


def load_skill_folder(folder: Path) -> Skill:
    """The skill of an AgentSkills folder; SkillValidationError when it has no SKILL.md."""
    skill_md = find_skill_md(folder)
    if skill_md is None:
        raise SkillValidationError(f"{folder} has no SKILL.md: it is not a skill folder")
    return load_skill(skill_md)


def _describe(skill: Skill) -> LoadedExtension:
    return LoadedExtension(skill.name, skill.version, skill.description or "")


def skill_installation(
    installed_dir: Path | None = None, fetch: Fetch | None = None
) -> InstallationManager[Skill]:
    """The installed skills of `installed_dir` (default: the user's); with `fetch` it can
    also install and update them."""
    return InstallationManager(
        installed_dir if installed_dir is not None else get_installed_skills_dir(),
        kind="skill",
        manifest_key="skills",
        load=load_skill_folder,
        describe=_describe,
        fetch=fetch,
    )


def load_installed_skills(installed_dir: Path | None = None) -> list[Skill]:
    """The enabled installed skills, loaded."""
    return skill_installation(installed_dir).load_installed()


def load_user_skills(home: str | Path | None = None) -> list[Skill]:
    """The user's skills: `~/.agents/skills`, `~/.openhands/skills`, `~/.openhands/microagents`,
    then the enabled installed ones (`~/.openhands/skills/installed`); first wins a name."""
    base = Path(home) if home is not None else Path.home()
    skills: list[Skill] = []
    seen: set[str] = set()
    gather_skills_from_dirs((base / sub for sub in SKILLS_SUBDIRS), skills, seen)
    installed = base / ".openhands" / "skills" / "installed"
    if installed.is_dir():
        for skill in load_installed_skills(installed):
            if skill.name not in seen:
                seen.add(skill.name)
                skills.append(skill)
    return skills
