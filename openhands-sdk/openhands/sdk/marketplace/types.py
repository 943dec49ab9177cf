"""A marketplace: a `.plugin/marketplace.json` (or `.claude-plugin/`) listing plugins and
skills to install, each with a source (a path relative to the marketplace, a git URL or a
GitHub blob/tree URL)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openhands.sdk.extensions.errors import ExtensionError
from openhands.sdk.extensions.manifest import PluginAuthor, PluginManifest
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "MARKETPLACE_MANIFEST_DIRS",
    "MARKETPLACE_MANIFEST_FILE",
    "Marketplace",
    "MarketplaceEntry",
    "MarketplaceError",
    "MarketplaceMetadata",
    "MarketplaceNotFoundError",
    "MarketplaceOwner",
    "MarketplacePluginEntry",
    "MarketplacePluginSource",
]

MARKETPLACE_MANIFEST_DIRS = [".plugin", ".claude-plugin"]
"""Where a marketplace folder keeps its manifest, first found wins."""
MARKETPLACE_MANIFEST_FILE = "marketplace.json"


class MarketplaceError(ExtensionError, ValueError):
    """A marketplace file cannot be read (not JSON, not an object); the message names it.

    A manifest whose fields are wrong raises pydantic's `ValidationError` naming the field,
    as `Marketplace.model_validate` does (the reference's error type)."""


class MarketplaceNotFoundError(ExtensionError, FileNotFoundError):
    """The marketplace folder, or its `.plugin/marketplace.json`, does not exist."""


class MarketplaceOwner(BaseModel):
    """Who maintains the marketplace."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(description="The maintainer or team.")
    email: str | None = Field(default=None, description="How to reach them.")


class MarketplacePluginSource(BaseModel):
    """A plugin source given as an object: `{"source": "github", "repo": "owner/repo"}` or
    `{"source": "url", "url": "https://..."}`, with an optional `ref` and `path`."""

    model_config = ConfigDict(extra="allow")

    source: str = Field(description="'github' or 'url'.")
    repo: str | None = Field(default=None, description="owner/repo, for 'github'.")
    url: str | None = Field(default=None, description="A git URL, for 'url'.")
    ref: str | None = Field(default=None, description="A branch, tag or commit.")
    path: str | None = Field(default=None, description="A subfolder of the repository.")

    @model_validator(mode="after")
    def _has_location(self) -> MarketplacePluginSource:
        # The reference's words first ("GitHub source requires 'repo' field"): scripts match them.
        if self.source == "github" and not self.repo:
            raise ValueError("GitHub source requires 'repo' field (owner/repo)")
        if self.source == "url" and not self.url:
            raise ValueError("URL source requires 'url' field (a git URL)")
        return self


class MarketplaceEntry(BaseModel):
    """A skill (or, as the base of `MarketplacePluginEntry`, a plugin) the marketplace lists."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    name: str = Field(min_length=1, description="Its name (kebab-case).")
    source: str = Field(
        description="A path relative to the marketplace, a git URL or a GitHub blob/tree URL."
    )
    description: str | None = Field(default=None, description="What it is for.")
    version: str | None = Field(default=None, description="Its version.")
    author: PluginAuthor | None = Field(
        default=None, description="Who wrote it (`Name <email>` text is read too)."
    )
    category: str | None = Field(default=None, description="A category, for browsing.")
    homepage: str | None = Field(default=None, description="Where to read about it.")

    @field_validator("author", mode="before")
    @classmethod
    def _author_text(cls, value: Any) -> Any:
        return PluginAuthor.from_string(value) if isinstance(value, str) else value


class MarketplacePluginEntry(MarketplaceEntry):
    """A plugin the marketplace lists; its source may also be a `MarketplacePluginSource`."""

    source: str | MarketplacePluginSource = Field(  # type: ignore[assignment]
        description="A path, a git URL, or a {source: github|url, ...} object."
    )
    entry_command: str | None = Field(
        default=None, description="The command to suggest first (one of its commands)."
    )
    strict: bool = Field(
        default=True,
        description="True: the source holds the plugin's own plugin.json; False: this entry "
        "defines the plugin (see `to_plugin_manifest`).",
    )
    commands: str | list[str] | None = Field(default=None, description="Command files.")
    agents: str | list[str] | None = Field(default=None, description="Agent files.")
    hooks: str | dict[str, Any] | None = Field(default=None, description="A hooks config.")
    mcp_config: dict[str, dict[str, Any]] | None = Field(
        default=None, alias="mcpServers", description="MCP servers, by name."
    )
    lsp_servers: dict[str, dict[str, Any]] | None = Field(
        default=None, alias="lspServers", description="Language servers, by name."
    )
    license: str | None = Field(default=None, description="An SPDX license identifier.")
    keywords: list[str] = Field(default_factory=list, description="Words to search by.")
    tags: list[str] = Field(default_factory=list, description="Labels, for browsing.")
    repository: str | None = Field(default=None, description="Its source repository.")

    def to_plugin_manifest(self) -> PluginManifest:
        """The plugin manifest this entry stands for (for a `strict=False` entry, which has
        no plugin.json of its own); a missing version is 1.0.0."""
        return PluginManifest(
            name=self.name,
            version=self.version or "1.0.0",
            description=self.description or "",
            author=self.author,
            entry_command=self.entry_command,
        )

    def source_string(self) -> str:
        """The source as one string `fetch` understands (a path or a git URL)."""
        if isinstance(self.source, str):
            return self.source
        if self.source.source == "github":
            return f"github:{self.source.repo}"
        return self.source.url or ""


class MarketplaceMetadata(BaseModel):
    """Optional facts about the marketplace itself."""

    model_config = ConfigDict(extra="allow")

    description: str | None = None
    version: str | None = None


class Marketplace(BaseModel):
    """A marketplace read from a folder's `.plugin/marketplace.json`."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1, description="The marketplace's name.")
    owner: MarketplaceOwner = Field(description="Who maintains it (required, as in Claude Code).")
    description: str | None = Field(default=None, description="What it offers.")
    plugins: list[MarketplacePluginEntry] = Field(default_factory=list)
    skills: list[MarketplaceEntry] = Field(default_factory=list)
    metadata: MarketplaceMetadata | None = None
    path: str | None = Field(default=None, description="The folder it was read from.")

    @classmethod
    def find_manifest(cls, marketplace_path: str | Path) -> Path | None:
        """The manifest file of a marketplace folder (or the file itself), or None."""
        path = Path(marketplace_path).expanduser()
        if path.is_file():
            return path
        for folder in MARKETPLACE_MANIFEST_DIRS:
            candidate = path / folder / MARKETPLACE_MANIFEST_FILE
            if candidate.is_file():
                return candidate
        return None

    @classmethod
    def load(cls, marketplace_path: str | Path) -> Marketplace:
        """Read the marketplace of a folder (or of its manifest file).

        Raises `MarketplaceNotFoundError` (a FileNotFoundError) when the folder or its manifest
        is missing, `MarketplaceError` (a ValueError) when the manifest is not a JSON object,
        and pydantic's `ValidationError` naming the field when a field is wrong.
        """
        path = Path(marketplace_path).expanduser()
        if not path.exists():
            raise MarketplaceNotFoundError(
                f"Marketplace directory not found: {path}; give the folder that holds "
                f".plugin/{MARKETPLACE_MANIFEST_FILE}"
            )
        manifest = cls.find_manifest(path)
        if manifest is None:
            raise MarketplaceNotFoundError(
                f"Marketplace manifest not found under {path}: expected "
                f"{' or '.join(f'{d}/{MARKETPLACE_MANIFEST_FILE}' for d in MARKETPLACE_MANIFEST_DIRS)}"
            )
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except UnicodeDecodeError as exc:
            raise MarketplaceError(f"Invalid JSON in {manifest}: not UTF-8 ({exc})") from exc
        except json.JSONDecodeError as exc:
            raise MarketplaceError(f"Invalid JSON in {manifest}: {exc}") from exc
        except OSError as exc:
            raise MarketplaceError(f"{manifest} cannot be read: {exc}") from exc
        if not isinstance(data, dict):
            raise MarketplaceError(f"{manifest} must hold a JSON object")
        root = (
            manifest.parent.parent
            if manifest.parent.name in MARKETPLACE_MANIFEST_DIRS
            else manifest.parent
        )
        return cls.model_validate({**data, "path": str(root.resolve())})

    def get_plugin(self, name: str) -> MarketplacePluginEntry | None:
        """The plugin entry called `name`, or None."""
        return next((entry for entry in self.plugins if entry.name == name), None)

    def resolve_plugin_source(
        self, plugin: MarketplacePluginEntry
    ) -> tuple[str, str | None, str | None]:
        """Where `plugin` comes from, as `(source, ref, subpath)`: `github:owner/repo` or a git
        URL with its ref and subfolder, or a path (a relative one joined to this marketplace's
        folder; absolute paths and URLs as they are)."""
        source = plugin.source
        if isinstance(source, MarketplacePluginSource):
            location = f"github:{source.repo}" if source.source == "github" else source.url
            if not location or (source.source == "github" and not source.repo):
                raise MarketplaceError(
                    f"Plugin {plugin.name!r}: its {source.source!r} source lacks the field "
                    "that says where it is (`repo` for github, `url` for url)"
                )
            return location, source.ref, source.path
        if source.startswith(("/", "~")) or "://" in source or not self.path:
            return source, None, None
        relative = source[2:] if source.startswith("./") else source
        return str(Path(self.path) / relative), None, None

    def get_skill(self, name: str) -> MarketplaceEntry | None:
        """The skill entry called `name`, or None."""
        return next((entry for entry in self.skills if entry.name == name), None)
