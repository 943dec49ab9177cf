"""Where a skill folder's parts are: its SKILL.md and the resources it ships.

An AgentSkills skill is a folder named after the skill holding `SKILL.md` (YAML front matter
with `name` and `description`, then the instructions) and optionally `scripts/`,
`references/` and `assets/`, whose files the agent reads or runs when it uses the skill.
Loading a skill needs this, so it sits under the model (`skills.py`);
`openhands.sdk.skills.resources` hands the same names on with the rules for a skill's name.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "RESOURCE_DIRECTORIES",
    "SKILL_FILE",
    "SkillResources",
    "discover_skill_resources",
    "find_skill_md",
]

logger = logging.getLogger(__name__)

SKILL_FILE = "SKILL.md"
"""The file that makes a folder a skill (matched without regard to case)."""

RESOURCE_DIRECTORIES: tuple[str, ...] = ("scripts", "references", "assets")
"""The folders of a skill whose files are listed in `SkillResources`."""


class SkillResources(BaseModel):
    """The files an AgentSkills folder ships beside its SKILL.md, found when it is loaded.

    Paths are relative to `skill_root`; the agent reads or runs them on demand (they are never
    put into the prompt).
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    skill_root: str = Field(description="The skill's folder (where SKILL.md is).")
    scripts: list[str] = Field(default_factory=list, description="Files under scripts/.")
    references: list[str] = Field(default_factory=list, description="Files under references/.")
    assets: list[str] = Field(default_factory=list, description="Files under assets/.")

    def has_resources(self) -> bool:
        """Whether the skill ships any script, reference or asset."""
        return bool(self.scripts or self.references or self.assets)


def find_skill_md(skill_dir: str | Path) -> Path | None:
    """The SKILL.md of `skill_dir` (any letter case), or None when it is not a skill folder."""
    folder = Path(skill_dir)
    exact = folder / SKILL_FILE
    if exact.is_file():
        return exact
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    for name in names:
        if name.lower() == "skill.md" and (folder / name).is_file():
            return folder / name
    return None


def discover_skill_resources(skill_dir: str | Path) -> SkillResources:
    """The files under `scripts/`, `references/` and `assets/` of a skill folder.

    Each list holds paths relative to its resource folder, sorted; a missing folder gives an
    empty list, and an unreadable one is logged and left empty. Hidden entries are skipped.
    """
    root = os.path.realpath(skill_dir)
    found: dict[str, list[str]] = {}
    for kind in RESOURCE_DIRECTORIES:
        try:
            found[kind] = sorted(_files_under(os.path.join(root, kind)))
        except FileNotFoundError:
            found[kind] = []
        except OSError as exc:
            logger.warning("Cannot list %s of skill %s: %s", kind, root, exc)
            found[kind] = []
    return SkillResources(skill_root=root, **found)


def _files_under(folder: str, prefix: str = "") -> list[str]:
    """Every file below `folder`, as `/`-joined paths relative to it (one scandir per folder)."""
    files: list[str] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                files.extend(_files_under(entry.path, f"{prefix}{entry.name}/"))
            else:
                files.append(prefix + entry.name)
    return files
