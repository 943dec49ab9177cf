"""Reading folders of skills: a user's or a project's skills, merged by name.

Layout (the reference SDK's): a skills folder holds `name.md` files (the name is the path
without `.md`, or the front matter's `name`) and `name/SKILL.md` folders (AgentSkills format:
the folder's `scripts/`, `references/` and `assets/` are the skill's resources, never skills).
Each file is read by `openhands.sdk.context.skills.load_skill` (its format is described
there); a file that cannot be read or parsed is logged and skipped.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path

from openhands.sdk.context.skill_resources import find_skill_md
from openhands.sdk.context.skills import (
    CACHE_SIZE,
    THIRD_PARTY_SKILL_NAMES,
    Skill,
    SkillError,
    SkillValidationError,
    load_skill,
    parse_front_matter,
)

__all__ = [
    "CACHE_SIZE",
    "INSTALLED_MANIFEST",
    "SKILLS_SUBDIRS",
    "THIRD_PARTY_SKILL_NAMES",
    "SkillError",
    "SkillValidationError",
    "gather_skills_from_dirs",
    "load_project_skills",
    "load_skill",
    "load_skills_from_dir",
    "merge_skills_by_name",
    "parse_front_matter",
]

logger = logging.getLogger(__name__)

SKILLS_SUBDIRS = (Path(".agents/skills"), Path(".openhands/skills"), Path(".openhands/microagents"))
"""Where skills live under a home or project folder, in priority order (first wins a name)."""

INSTALLED_MANIFEST = ".installed.json"
"""A folder holding this file is an install folder (`openhands.sdk.skills.install_skill`):
its skills are loaded by `load_installed_skills`, which honours their enabled flag."""


def _skill_files(root: Path) -> tuple[list[Path], list[Path]]:
    """(SKILL.md files, plain .md files) under `root`.

    A folder with a SKILL.md is one skill: nothing below it is read as another skill (its
    `references/` are the skill's own). Hidden folders and install folders are skipped.
    """
    skill_md: list[Path] = []
    plain: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        folder = Path(dirpath)
        own = next((n for n in filenames if n.lower() == "skill.md"), None)
        if own is not None and folder != root:
            skill_md.append(folder / own)
            dirnames[:] = []
            continue
        if folder != root and INSTALLED_MANIFEST in filenames:
            dirnames[:] = []  # an install folder: load_installed_skills reads it
            continue
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        plain.extend(
            folder / n
            for n in sorted(filenames)
            if n.endswith(".md") and n != "README.md" and n.lower() != "skill.md"
        )
    return sorted(skill_md), sorted(plain)


def load_skills_from_dir(
    skill_dir: str | Path,
    *,
    root: str | Path | None = None,
    workspace: str | Path | None = None,
) -> tuple[dict[str, Skill], dict[str, Skill], dict[str, Skill]]:
    """Every skill in a skills folder, as (always-on, triggered, SKILL.md) dicts by name.

    A folder that is itself a skill (it holds a SKILL.md) gives that one skill. Files are
    read from inside `root` (default: the folder itself) only, as the sandbox of
    `workspace` shows them (`load_skill`); one that leaves it, is hidden, is no regular
    file or is too large is logged and skipped.
    """
    folder = Path(skill_dir)
    floor = Path(root) if root is not None else folder
    repo: dict[str, Skill] = {}
    knowledge: dict[str, Skill] = {}
    agentskills: dict[str, Skill] = {}
    if not folder.is_dir():
        return repo, knowledge, agentskills
    itself = find_skill_md(folder)
    skill_md, plain = ([itself], []) if itself is not None else _skill_files(folder)
    for path in [*skill_md, *plain]:
        try:
            skill = load_skill(path, folder, root=floor, workspace=workspace)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            logger.warning("Skipping skill %s: %s", path, exc)
            continue
        target = (
            agentskills
            if skill.is_agentskills_format
            else repo
            if skill.trigger is None
            else knowledge
        )
        target.setdefault(skill.name, skill)
    return repo, knowledge, agentskills


def gather_skills_from_dirs(
    dirs: Iterable[Path],
    skills: list[Skill],
    seen: set[str],
    *,
    root: str | Path | None = None,
    workspace: str | Path | None = None,
) -> None:
    """Append to `skills` each skill of `dirs` whose name is not in `seen` (first wins a name);
    `root` and `workspace` as for `load_skills_from_dir`."""
    for folder in dirs:
        for found in load_skills_from_dir(folder, root=root, workspace=workspace):
            for name, skill in found.items():
                if name not in seen:
                    seen.add(name)
                    skills.append(skill)


def _git_root(path: Path) -> Path | None:
    return next((p for p in (path, *path.parents) if (p / ".git").exists()), None)


def load_project_skills(work_dir: str | Path) -> list[Skill]:
    """A project's skills: its AGENTS.md-style files, then its skills folders; the working
    directory first, then the enclosing git repository's root (first wins a name).

    The project is the agent's: every file is read as its sandbox shows it, from inside the
    project only (an `AGENTS.md` linked to `/proc/self/environ`, a FIFO or `/dev/zero` is
    logged and skipped, never read)."""
    work = Path(work_dir)
    roots = [work]
    git_root = _git_root(work)
    if git_root is not None and git_root != work:
        roots.append(git_root)
    skills: list[Skill] = []
    seen: set[str] = set()
    for root in roots:
        try:
            entries = sorted(root.iterdir()) if root.is_dir() else []
        except OSError as exc:
            logger.warning("Cannot list %s for project skills: %s", root, exc)
            continue
        for entry in entries:
            if entry.name.lower() not in THIRD_PARTY_SKILL_NAMES:
                continue
            try:
                skill = load_skill(entry, root=root, workspace=work)
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                logger.warning("Skipping skill %s: %s", entry, exc)
                continue
            if skill.name not in seen:
                seen.add(skill.name)
                skills.append(skill)
    for root in roots:
        gather_skills_from_dirs(
            (root / sub for sub in SKILLS_SUBDIRS), skills, seen, root=root, workspace=work
        )
    return skills


def merge_skills_by_name(primary: Iterable[Skill], secondary: Iterable[Skill]) -> list[Skill]:
    """`primary` then every skill of `secondary` whose name `primary` does not have."""
    merged = list(primary)
    seen = {skill.name for skill in merged}
    for skill in secondary:
        if skill.name not in seen:
            seen.add(skill.name)
            merged.append(skill)
    return merged
