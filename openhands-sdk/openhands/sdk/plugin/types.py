"""The data of plugins: where one comes from, its manifest, its slash commands."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from openhands.sdk.context.skills import KeywordTrigger, Skill
from openhands.sdk.extensions.manifest import PluginAuthor, PluginManifest
from openhands.sdk.extensions.sources import redact_url
from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "CommandDefinition",
    "PluginAuthor",
    "PluginManifest",
    "PluginSource",
    "ResolvedPluginSource",
]


def _relative_folder(value: str | None) -> str | None:
    if value is None:
        return None
    path = PurePosixPath(value.strip("/"))
    if path.is_absolute() or ".." in path.parts or not value.strip("/"):
        raise ValueError("repo_path must be a folder inside the repository (no '..', not absolute)")
    return str(path)


class PluginSource(BaseModel):
    """A plugin to load into a conversation: a folder, a git URL or `github:owner/repo`, with
    an optional `ref` (branch, tag or commit) and `repo_path` (a folder of a monorepo)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    source: str = Field(min_length=1, description="A folder, a git URL or github:owner/repo.")
    ref: str | None = Field(default=None, description="A branch, tag or commit (git only).")
    repo_path: str | None = Field(default=None, description="The plugin's folder in the repo.")

    @field_validator("repo_path")
    @classmethod
    def _inside(cls, value: str | None) -> str | None:
        return _relative_folder(value)

    @property
    def source_url(self) -> str | None:
        """The source without credentials, for display (None for a local folder)."""
        from openhands.sdk.extensions.errors import ExtensionFetchError
        from openhands.sdk.extensions.sources import parse_source

        try:
            parsed = parse_source(self.source)
        except ExtensionFetchError:
            return None
        return redact_url(parsed.location) if parsed.kind == "git" else None


class ResolvedPluginSource(BaseModel):
    """A plugin source pinned to what was loaded: the commit a git source resolved to."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    source: str = Field(description="The source as given.")
    resolved_ref: str | None = Field(default=None, description="The commit (git sources).")
    repo_path: str | None = Field(default=None, description="The plugin's folder in the repo.")
    original_ref: str | None = Field(default=None, description="The ref that was asked for.")

    @classmethod
    def from_plugin_source(
        cls, plugin_source: PluginSource, resolved_ref: str | None
    ) -> ResolvedPluginSource:
        """The pinned form of `plugin_source` once it resolved to `resolved_ref`."""
        return cls(
            source=plugin_source.source,
            resolved_ref=resolved_ref,
            repo_path=plugin_source.repo_path,
            original_ref=plugin_source.ref,
        )

    def to_plugin_source(self) -> PluginSource:
        """A source that loads exactly this version again (the commit when known)."""
        return PluginSource(
            source=self.source, ref=self.resolved_ref or self.original_ref, repo_path=self.repo_path
        )


class CommandDefinition(BaseModel):
    """A slash command of a plugin: `commands/<name>.md` (front matter + instructions)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    name: str = Field(description="The command's name (the file's stem).")
    description: str = Field(default="", description="What it does.")
    argument_hint: str | None = Field(default=None, description="How to pass arguments.")
    allowed_tools: list[str] = Field(default_factory=list, description="Tools it expects.")
    content: str = Field(default="", description="Its instructions.")
    source: str | None = Field(default=None, description="The file it was read from.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Other front matter.")

    @classmethod
    def load(cls, command_path: str | Path, *, root: str | Path | None = None) -> CommandDefinition:
        """Read a command file from inside `root` (default: its folder; see
        `read_text_beneath`). Raises FrontMatterError (a ValueError) or OSError."""
        from openhands.sdk.utils.frontmatter import split_front_matter
        from openhands.sdk.workspace.extension_files import read_text_beneath

        path = Path(command_path)
        text = read_text_beneath(root if root is not None else path.parent, path)
        meta, body = split_front_matter(text, source=str(path))
        tools = meta.pop("allowed-tools", meta.pop("allowed_tools", []))
        if isinstance(tools, str):
            tools = [t.strip() for t in tools.replace(",", " ").split() if t.strip()]
        hint = meta.pop("argument-hint", meta.pop("argument_hint", None))
        return cls(
            name=path.stem,
            description=str(meta.pop("description", "") or ""),
            argument_hint=str(hint) if hint is not None else None,
            allowed_tools=[str(t) for t in tools or []],
            content=body.strip(),
            source=str(path),
            metadata=meta,
        )

    def to_skill(self, plugin_name: str) -> Skill:
        """This command as a skill triggered by `/<plugin>:<command>` in a user message."""
        return Skill(
            name=f"{plugin_name}:{self.name}",
            content=self.content,
            trigger=KeywordTrigger(keywords=[f"/{plugin_name}:{self.name}"]),
            source=self.source,
            description=self.description or None,
            allowed_tools=self.allowed_tools or None,
        )
