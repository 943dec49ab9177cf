"""Skills: instructions an agent gets always, or when a keyword or task triggers them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

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
        """Read a skill from a markdown file (see `openhands.sdk.context.skill_loading`)."""
        from openhands.sdk.context.skill_loading import load_skill

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
