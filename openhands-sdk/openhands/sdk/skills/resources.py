"""The AgentSkills folder layout: where SKILL.md is, what a skill ships, which names are valid.

An AgentSkills skill is a folder named after the skill holding `SKILL.md` (YAML front matter
with `name` and `description`, then the instructions) and optionally `scripts/`,
`references/` and `assets/`, whose files the agent reads or runs when it uses the skill.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from openhands.sdk.context.skills import SkillResources

__all__ = [
    "RESOURCE_DIRECTORIES",
    "SKILL_FILE",
    "SKILL_NAME_PATTERN",
    "discover_skill_resources",
    "find_skill_md",
    "validate_skill_name",
]

logger = logging.getLogger(__name__)

SKILL_FILE = "SKILL.md"
"""The file that makes a folder a skill (matched without regard to case)."""

RESOURCE_DIRECTORIES: tuple[str, ...] = ("scripts", "references", "assets")
"""The folders of a skill whose files are listed in `SkillResources`."""

SKILL_NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
"""AgentSkills names: lowercase letters and digits in groups joined by single hyphens."""

MAX_SKILL_NAME_LENGTH = 64


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


def validate_skill_name(name: str, directory_name: str | None = None) -> list[str]:
    """What is wrong with `name` as an AgentSkills name ([] when it is valid).

    With `directory_name`, the name must also equal the skill's folder name.
    """
    if not name:
        return ["the name is empty"]
    problems: list[str] = []
    if len(name) > MAX_SKILL_NAME_LENGTH:
        problems.append(f"the name has {len(name)} characters (at most {MAX_SKILL_NAME_LENGTH})")
    if not SKILL_NAME_PATTERN.match(name):
        problems.append(
            "the name must be lowercase letters and digits joined by single hyphens "
            "(e.g. 'pdf-tools')"
        )
    if directory_name is not None and name != directory_name:
        problems.append(f"the name {name!r} differs from its folder {directory_name!r}")
    return problems
