"""A plugin's manifest and author: what a plugin folder and a marketplace entry both describe.

Kept under `extensions` (below `marketplace` and `plugin`) so a marketplace entry can turn
into a manifest; `openhands.sdk.plugin.types` hands both names on.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = ["PluginAuthor", "PluginManifest"]


class PluginAuthor(BaseModel):
    """Who wrote a plugin."""

    model_config = ConfigDict(defer_build=True, extra="allow")

    name: str = Field(default="", description="The author's name.")
    email: str | None = Field(default=None, description="Their email address.")
    url: str | None = Field(default=None, description="Their web page.")

    @classmethod
    def from_string(cls, author: str) -> PluginAuthor:
        """`Name <email>` (or just a name) as a PluginAuthor."""
        text = author.strip()
        if text.endswith(">") and "<" in text:
            name, _, email = text[:-1].partition("<")
            return cls(name=name.strip(), email=email.strip() or None)
        return cls(name=text)


class PluginManifest(BaseModel):
    """A plugin's `.plugin/plugin.json` (or `.claude-plugin/plugin.json`)."""

    model_config = ConfigDict(defer_build=True, extra="allow")

    name: str = Field(min_length=1, description="The plugin's name.")
    version: str = Field(default="1.0.0", description="Its version.")
    description: str = Field(default="", description="What it is for.")
    author: PluginAuthor | None = Field(default=None, description="Who wrote it.")
    entry_command: str | None = Field(
        default=None, description="The command to suggest first (one of its commands)."
    )

    @field_validator("author", mode="before")
    @classmethod
    def _author_text(cls, value: Any) -> Any:
        return PluginAuthor.from_string(value) if isinstance(value, str) else value
