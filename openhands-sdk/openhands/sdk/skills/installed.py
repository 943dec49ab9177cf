"""Installed skills: AgentSkills folders copied into `~/.openhands/skills/installed/`.

`install_skill(source)` fetches a skill folder (a local path, a git URL or
`github:owner/repo`, with `ref` and `repo_path` for one folder of a monorepo), checks that
it is a skill (its SKILL.md parses) and copies it in under its name; the folder's
`.installed.json` records where each came from and whether it is enabled (see
`openhands.sdk.extensions.installation`). `load_installed_skills()` gives the enabled ones;
`AgentContext(load_user_skills=True)` includes them.
"""

from __future__ import annotations

import logging
from pathlib import Path

from openhands.sdk.context.skill_resources import find_skill_md
from openhands.sdk.context.skills import Skill
from openhands.sdk.context.user_skills import (
    get_installed_skills_dir,
    load_installed_skills,
    load_skill_folder,
    skill_installation,
)
from openhands.sdk.extensions.errors import ExtensionError
from openhands.sdk.extensions.installation import InstallationInfo, InstallationManager
from openhands.sdk.skills.fetch import fetch_skill_with_resolution

__all__ = [
    "InstalledSkillInfo",
    "disable_skill",
    "enable_skill",
    "get_installed_skill",
    "get_installed_skills_dir",
    "install_skill",
    "install_skills_from_marketplace",
    "list_installed_skills",
    "load_installed_skills",
    "uninstall_skill",
    "update_skill",
]

logger = logging.getLogger(__name__)

InstalledSkillInfo = InstallationInfo
"""The manifest record of one installed skill (name, source, refs, enabled, path)."""


def _manager(installed_dir: Path | None) -> InstallationManager[Skill]:
    return skill_installation(installed_dir, fetch=_fetch)


def _fetch(source: str, ref: str | None, repo_path: str | None, update: bool):
    return fetch_skill_with_resolution(source, ref=ref, update=update, repo_path=repo_path)


def install_skill(
    source: str,
    ref: str | None = None,
    repo_path: str | None = None,
    installed_dir: Path | None = None,
    force: bool = False,
) -> InstalledSkillInfo:
    """Install the skill at `source` (see the module docstring); `force` replaces one of the
    same name. Raises SkillFetchError or ExtensionInstallError (a ValueError)."""
    return _manager(installed_dir).install(source, ref=ref, repo_path=repo_path, force=force)


def uninstall_skill(name: str, installed_dir: Path | None = None) -> bool:
    """Remove an installed skill; False when it was not installed."""
    return _manager(installed_dir).uninstall(name)


def enable_skill(name: str, installed_dir: Path | None = None) -> bool:
    """Load an installed skill again; False when it is not installed."""
    return _manager(installed_dir).enable(name)


def disable_skill(name: str, installed_dir: Path | None = None) -> bool:
    """Keep a skill installed without loading it; False when it is not installed."""
    return _manager(installed_dir).disable(name)


def list_installed_skills(installed_dir: Path | None = None) -> list[InstalledSkillInfo]:
    """Every installed skill, enabled or not (the manifest reconciled with the folders)."""
    return _manager(installed_dir).list_installed()


def get_installed_skill(name: str, installed_dir: Path | None = None) -> InstalledSkillInfo | None:
    """The record of one installed skill, or None."""
    return _manager(installed_dir).get(name)


def update_skill(name: str, installed_dir: Path | None = None) -> InstalledSkillInfo | None:
    """Fetch an installed skill again from its source and ref; None when not installed."""
    return _manager(installed_dir).update(name)


def install_skills_from_marketplace(
    marketplace_path: str | Path,
    installed_dir: Path | None = None,
    force: bool = False,
) -> list[InstalledSkillInfo]:
    """Install every skill a marketplace lists, and the skills of the plugins it lists.

    `marketplace_path` is the folder holding `.plugin/marketplace.json`; relative sources are
    resolved against it. A skill installed already is left as it is unless `force`; an entry
    that cannot be fetched or is not a skill is logged and skipped, so one bad entry never
    blocks the others. Returns what was installed.
    """
    from openhands.sdk.extensions.fetch import resolve_source_path
    from openhands.sdk.marketplace.types import Marketplace

    root = Path(marketplace_path).expanduser().resolve()
    marketplace = Marketplace.load(root)
    manager = _manager(installed_dir)
    folders: list[tuple[str, Path]] = []
    for entry in marketplace.skills:
        folder = resolve_source_path(entry.source, base_path=root)
        if folder is None or not folder.is_dir():
            logger.warning("Marketplace skill %r: source %s unavailable", entry.name, entry.source)
            continue
        folders.append((entry.name, folder))
    for plugin in marketplace.plugins:
        folder = resolve_source_path(plugin.source_string(), base_path=root)
        skills_dir = folder / "skills" if folder is not None else None
        if skills_dir is None or not skills_dir.is_dir():
            continue
        folders.extend(
            (child.name, child)
            for child in sorted(skills_dir.iterdir())
            if child.is_dir() and find_skill_md(child) is not None
        )
    installed: list[InstalledSkillInfo] = []
    for name, folder in folders:
        try:
            skill = load_skill_folder(folder)
        except (OSError, ValueError) as exc:
            logger.warning("Marketplace skill %r is not a skill: %s", name, exc)
            continue
        if not force and manager.get(skill.name) is not None:
            logger.info("Skill %r is installed already (force=True replaces it)", skill.name)
            continue
        try:
            installed.append(manager.install(str(folder), force=force))
        except ExtensionError as exc:
            logger.warning("Marketplace skill %r not installed: %s", name, exc)
    return installed
