"""Skills: instructions an agent gets always, or when a keyword or task triggers them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class KeywordTrigger(BaseModel):
    """Activates a skill when one of `keywords` appears in a user message (case-insensitive)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    type: Literal["keyword"] = "keyword"
    keywords: list[str] = Field(min_length=1, description="Words that activate the skill.")


class TaskTrigger(BaseModel):
    """Activates a skill for a task named by one of `triggers` (e.g. a slash command)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    type: Literal["task"] = "task"
    triggers: list[str] = Field(min_length=1, description="Task names that activate the skill.")


class Skill(BaseModel):
    """A named piece of guidance for the agent.

    Without a trigger it is always part of the system prompt; with one it joins the turn whose
    user message triggers it.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid")

    name: str = Field(min_length=1, description="A unique name (often the file it came from).")
    content: str = Field(description="The instructions themselves.")
    trigger: KeywordTrigger | TaskTrigger | None = Field(
        default=None, discriminator="type", description="None: always active."
    )
    source: str | None = Field(default=None, description="Where it came from (a path), if any.")
    description: str | None = Field(default=None, description="One line on what it is for.")
