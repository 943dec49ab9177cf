"""Skills: instructions an agent gets always, or when a keyword or task triggers them; and
reading one from its markdown file (`load_skill`, `Skill.load`).

A skill file is markdown with YAML front matter. Keys: `name`, `description`, `triggers` (a
list: a keyword skill), `inputs` (a task skill, triggered by `/name` too), and the
AgentSkills fields (`license`, `compatibility`, `metadata`, `allowed-tools`,
`disable-model-invocation`, `version`). No front matter, or no triggers: an always-on
skill. A repository's AGENTS.md, CLAUDE.md, GEMINI.md and .cursorrules are always-on skills
too. Front matter is read by `openhands.sdk.utils.frontmatter` (PyYAML, loaded on first use).
Folders of skills are read by `openhands.sdk.context.skill_loading`.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Annotated, Any, Literal

from openhands.sdk.context.skill_resources import SkillResources, discover_skill_resources
from openhands.sdk.errors import OpenHandsError
from pydantic import BaseModel, ConfigDict, Field


class KeywordTrigger(BaseModel):
    """Activates a skill when one of `keywords` appears in a user message.

    Matching is case-insensitive and on whole tokens: `git` fires on "Git status" but not on
    "github".
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    type: Literal["keyword"] = "keyword"
    keywords: list[str] = Field(min_length=1, description="Words that activate the skill.")


class TaskTrigger(BaseModel):
    """Activates a skill for a task named by one of `triggers` (e.g. a slash command)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    type: Literal["task"] = "task"
    triggers: list[str] = Field(min_length=1, description="Task names that activate the skill.")


Trigger = Annotated[KeywordTrigger | TaskTrigger, Field(discriminator="type")]
"""What activates a skill (None on a skill: always active)."""


def _mentions(keyword: str, text_lower: str) -> bool:
    """Whether `keyword` stands in `text_lower` as a whole token (not inside a longer word)."""
    word = keyword.strip().lower()
    if not word:
        return False
    return re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", text_lower) is not None


class Skill(BaseModel):
    """A named piece of guidance for the agent.

    Without a trigger it is always part of the system prompt (a "repo" skill); with one it
    joins the user turn whose message triggers it (a "knowledge" skill). Skills read from
    SKILL.md folders (the AgentSkills format) are listed to the agent by name, description
    and location, and read on demand.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    name: str = Field(min_length=1, description="A unique name (often the file it came from).")
    content: str = Field(description="The instructions themselves.")
    trigger: Trigger | None = Field(default=None, description="None: always active.")
    source: str | None = Field(default=None, description="Where it came from (a path), if any.")
    description: str | None = Field(default=None, description="One line on what it is for.")
    is_agentskills_format: bool = Field(
        default=False, description="Loaded from a SKILL.md folder (listed, read on demand)."
    )
    version: str = Field(default="1.0.0", description="The skill's version (AgentSkills).")
    license: str | None = Field(default=None, description="Its license (AgentSkills).")
    compatibility: str | None = Field(default=None, description="What it needs (AgentSkills).")
    metadata: dict[str, str] | None = Field(default=None, description="Free key-value data.")
    allowed_tools: list[str] | None = Field(
        default=None, description="Tools it expects to use (AgentSkills; not enforced)."
    )
    disable_model_invocation: bool = Field(
        default=False, description="Only a trigger activates it; it is not listed to the agent."
    )
    resources: SkillResources | None = Field(
        default=None, description="Scripts, references and assets of a SKILL.md folder."
    )

    @classmethod
    def load(cls, path: str | Path, skill_base_dir: str | Path | None = None) -> Skill:
        """Read a skill from a markdown file (see `load_skill`)."""
        return load_skill(path, skill_base_dir)

    def get_triggers(self) -> list[str]:
        """The keywords or task names that activate this skill ([] for an always-on skill)."""
        if isinstance(self.trigger, KeywordTrigger):
            return list(self.trigger.keywords)
        if isinstance(self.trigger, TaskTrigger):
            return list(self.trigger.triggers)
        return []

    def match_trigger(self, message: str) -> str | None:
        """The first of this skill's triggers that `message` mentions, or None."""
        lowered = message.lower()
        return next((word for word in self.get_triggers() if _mentions(word, lowered)), None)

    def get_skill_type(self) -> Literal["repo", "knowledge", "agentskills"]:
        """ "agentskills" (a SKILL.md), "repo" (always on) or "knowledge" (triggered)."""
        if self.is_agentskills_format:
            return "agentskills"
        return "repo" if self.trigger is None else "knowledge"


THIRD_PARTY_SKILL_NAMES = {
    "agents.md": "agents",
    "agent.md": "agents",
    ".cursorrules": "cursorrules",
    "claude.md": "claude",
    "gemini.md": "gemini",
}
"""Instruction files other agents read, found at a project's root: lowercase file -> skill."""


class SkillError(OpenHandsError):
    """Reading, fetching or installing a skill failed."""


class SkillValidationError(SkillError, ValueError):
    """A skill file is malformed: its front matter is not a YAML mapping, or a field has the
    wrong shape (`triggers` must be a list of words). Fix the file's front matter."""


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
    from openhands.sdk.workspace.extension_files import read_text_beneath

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
    description = meta.get("description")
    optional = {
        "description": " ".join(str(description).split()) if description is not None else None,
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
        "resources": discover_skill_resources(path.parent) if agentskills else None,
    }
    return Skill(
        name=name,
        content=body,
        trigger=trigger,
        source=str(path),
        is_agentskills_format=agentskills,
        **{key: value for key, value in optional.items() if value is not None},
    )
