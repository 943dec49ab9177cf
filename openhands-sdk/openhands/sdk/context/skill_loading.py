"""Reading skills from disk: markdown files with YAML front matter, and SKILL.md folders.

Layout (the reference SDK's): a skills folder holds `name.md` files (the name is the path
without `.md`, or the front matter's `name`) and `name/SKILL.md` folders (AgentSkills format:
the folder's `scripts/`, `references/` and `assets/` are the skill's resources, never skills).
Front matter keys: `name`, `description`, `triggers` (a list: a keyword skill), `inputs` (a
task skill, triggered by `/name` too), and the AgentSkills fields (`license`,
`compatibility`, `metadata`, `allowed-tools`, `disable-model-invocation`, `version`). No
front matter, or no triggers: an always-on skill. A repository's AGENTS.md, CLAUDE.md,
GEMINI.md and .cursorrules are always-on skills too. A file that cannot be read or parsed is
logged and skipped. Front matter is read by `openhands.sdk.utils.frontmatter` (PyYAML).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from openhands.sdk.context.skill_resources import discover_skill_resources, find_skill_md
from openhands.sdk.context.skills import KeywordTrigger, Skill, TaskTrigger
from openhands.sdk.errors import OpenHandsError
from openhands.sdk.workspace.extension_files import read_text_beneath

logger = logging.getLogger(__name__)

SKILLS_SUBDIRS = (Path(".agents/skills"), Path(".openhands/skills"), Path(".openhands/microagents"))
"""Where skills live under a home or project folder, in priority order (first wins a name)."""

THIRD_PARTY_SKILL_NAMES = {
    "agents.md": "agents",
    "agent.md": "agents",
    ".cursorrules": "cursorrules",
    "claude.md": "claude",
    "gemini.md": "gemini",
}
"""Instruction files other agents read, found at a project's root: lowercase file -> skill."""


MAX_DESCRIPTION_CHARS = 1024
"""The longest description the AgentSkills format allows; longer ones are cut to it."""
_AGENTSKILLS_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_AGENTSKILLS_NAME_MAX = 64


class SkillError(OpenHandsError):
    """Reading, fetching or installing a skill failed."""


class SkillValidationError(SkillError, ValueError):
    """A skill file is malformed: its front matter is not a YAML mapping, or a field has the
    wrong shape (`triggers` must be a list of words). Fix the file's front matter."""


INSTALLED_MANIFEST = ".installed.json"
"""A folder holding this file is an install folder (`openhands.sdk.skills.install_skill`):
its skills are loaded by `load_installed_skills`, which honours their enabled flag."""


def parse_front_matter(text: str, source: str = "<text>") -> tuple[dict[str, Any], str]:
    """Split a markdown file into its YAML front matter (a dict; {} if none) and its body."""
    from openhands.sdk.utils.frontmatter import FrontMatterError, split_front_matter

    try:
        meta, body = split_front_matter(text, source=source)
    except FrontMatterError as exc:
        raise SkillValidationError(str(exc)) from None
    return meta, body.lstrip("\n")


CACHE_SIZE = 4096
"""Skills kept parsed per process (a server reads the same skill folders for every
conversation); an entry is used only while the file and its folders are unchanged."""

_cache: OrderedDict[tuple[Any, ...], Skill] = OrderedDict()
_cache_lock = threading.Lock()


def _cache_key(path: Path, skill_base_dir: str | Path | None) -> tuple[Any, ...]:
    """What a cached skill depends on: the file, its base, and (SKILL.md) its folders."""
    info = os.stat(path)
    key: tuple[Any, ...] = (str(path), str(skill_base_dir), info.st_mtime_ns, info.st_size)
    if path.name.lower() == "skill.md":
        folder = str(path.parent)
        stamps: list[int | None] = [os.stat(folder).st_mtime_ns]
        for kind in ("scripts", "references", "assets"):
            try:
                stamps.append(os.stat(os.path.join(folder, kind)).st_mtime_ns)
            except OSError:
                stamps.append(None)
        key += tuple(stamps)
    return key


def load_skill(
    path: str | Path,
    skill_base_dir: str | Path | None = None,
    *,
    root: str | Path | None = None,
    workspace: str | Path | None = None,
) -> Skill:
    """Read one skill file (see the module docstring). Raises SkillValidationError or OSError.

    The file is read as `read_text_beneath` reads: a regular file reached from `root`
    (default: `skill_base_dir`, else the file's folder) without leaving it, as the sandbox
    of `workspace` (default: `root`) shows it, within `OH_MAX_EXTENSION_FILE_BYTES`. A file
    read before and unchanged since gives the same `Skill` object (see CACHE_SIZE).
    """
    path = Path(path)
    floor = Path(root or skill_base_dir or path.parent)
    key = (*_cache_key(path, skill_base_dir), str(floor), str(workspace))
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    text = read_text_beneath(floor, path, workspace=workspace)
    skill = _read_skill(path, skill_base_dir, text)
    with _cache_lock:
        _cache[key] = skill
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return skill


def _read_skill(path: Path, skill_base_dir: str | Path | None, text: str) -> Skill:
    third_party = THIRD_PARTY_SKILL_NAMES.get(path.name.lower())
    if third_party is not None:
        return Skill(name=third_party, content=text, source=str(path))
    meta, body = parse_front_matter(text, str(path))
    agentskills = path.name.lower() == "skill.md"
    if agentskills:
        default_name = path.parent.name
    elif skill_base_dir is not None:
        default_name = path.relative_to(skill_base_dir).with_suffix("").as_posix()
    else:
        default_name = path.stem
    name = str(meta.get("name") or default_name)
    if agentskills:
        _check_agentskills_name(path, name)
    keywords = meta.get("triggers") or []
    if not isinstance(keywords, list) or not all(isinstance(k, str | int) for k in keywords):
        raise SkillValidationError(f"{path}: `triggers` must be a list of words")
    words = [str(k) for k in keywords if str(k).strip()]
    trigger: KeywordTrigger | TaskTrigger | None = None
    if "inputs" in meta:
        trigger = TaskTrigger(triggers=list(dict.fromkeys([*words, f"/{name}"])))
    elif words:
        trigger = KeywordTrigger(keywords=words)
    allowed = meta.get("allowed-tools", meta.get("allowed_tools"))
    if isinstance(allowed, str):
        allowed = allowed.split()
    elif allowed is not None and not isinstance(allowed, list):
        raise SkillValidationError(
            f"{path}: allowed-tools must be a list or a space-separated string of tool names"
        )
    if meta.get("metadata") is not None and not isinstance(meta["metadata"], dict):
        raise SkillValidationError(f"{path}: metadata must be a dictionary of strings")
    description = meta.get("description")
    if isinstance(description, str):
        # One line, and at most the AgentSkills limit: a longer one is cut, not refused.
        description = " ".join(description.split())[:MAX_DESCRIPTION_CHARS]
    optional = {
        "description": description,
        "license": meta.get("license"),
        "compatibility": meta.get("compatibility"),
        "version": str(meta["version"]) if meta.get("version") is not None else None,
        "metadata": {str(k): str(v) for k, v in meta["metadata"].items()}
        if isinstance(meta.get("metadata"), dict)
        else None,
        "allowed_tools": allowed,
        "disable_model_invocation": meta.get(
            "disable-model-invocation", meta.get("disable_model_invocation")
        ),
        "resources": _resources(path.parent) if agentskills else None,
    }
    return Skill(
        name=name,
        content=body,
        trigger=trigger,
        source=str(path),
        is_agentskills_format=agentskills,
        **{key: value for key, value in optional.items() if value is not None},
    )


def _check_agentskills_name(path: Path, name: str) -> None:
    """An AgentSkills name is lowercase letters, digits and hyphens, and names its folder."""
    if len(name) > _AGENTSKILLS_NAME_MAX or not _AGENTSKILLS_NAME.fullmatch(name):
        raise SkillValidationError(
            f"{path}: skill name {name!r} must be 1-64 lowercase letters, digits and single "
            "hyphens (AgentSkills)"
        )
    if name != path.parent.name:
        raise SkillValidationError(
            f"{path}: skill name {name!r} must match its folder {path.parent.name!r}; rename "
            "one of them"
        )


def _resources(folder: Path) -> Any:
    return discover_skill_resources(folder)


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
