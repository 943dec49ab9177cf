"""A marketplace: a `.plugin/marketplace.json` (or `.claude-plugin/`) listing plugins and
skills to install, each with a source (a path relative to the marketplace, a git URL or a
GitHub blob/tree URL)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from openhands.sdk.extensions.errors import ExtensionError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

__all__ = [
    "MARKETPLACE_MANIFEST_DIRS",
    "MARKETPLACE_MANIFEST_FILE",
    "Marketplace",
    "MarketplaceEntry",
    "MarketplaceError",
    "MarketplaceMetadata",
    "MarketplaceOwner",
    "MarketplacePluginEntry",
    "MarketplacePluginSource",
]

MARKETPLACE_MANIFEST_DIRS = [".plugin", ".claude-plugin"]
"""Where a marketplace folder keeps its manifest, first found wins."""
MARKETPLACE_MANIFEST_FILE = "marketplace.json"


class MarketplaceError(ExtensionError, ValueError):
    """A marketplace file is missing or malformed; the message names the file and field."""


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
        if self.source == "github" and not self.repo:
            raise ValueError("a 'github' source needs `repo` (owner/repo)")
        if self.source == "url" and not self.url:
            raise ValueError("a 'url' source needs `url`")
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
    author: dict[str, Any] | None = Field(default=None, description="Who wrote it.")
    category: str | None = Field(default=None, description="A category, for browsing.")
    homepage: str | None = Field(default=None, description="Where to read about it.")

    @field_validator("author", mode="before")
    @classmethod
    def _author_text(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value


class MarketplacePluginEntry(MarketplaceEntry):
    """A plugin the marketplace lists; its source may also be a `MarketplacePluginSource`."""

    source: str | MarketplacePluginSource = Field(  # type: ignore[assignment]
        description="A path, a git URL, or a {source: github|url, ...} object."
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
    owner: MarketplaceOwner | None = Field(default=None, description="Who maintains it.")
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
        """Read the marketplace of a folder. Raises MarketplaceError naming what is wrong."""
        manifest = cls.find_manifest(marketplace_path)
        if manifest is None:
            raise MarketplaceError(
                f"{marketplace_path} has no marketplace: expected "
                f"{' or '.join(f'{d}/{MARKETPLACE_MANIFEST_FILE}' for d in MARKETPLACE_MANIFEST_DIRS)}"
            )
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise MarketplaceError(f"{manifest} cannot be read as JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise MarketplaceError(f"{manifest} must hold a JSON object")
        root = (
            manifest.parent.parent
            if manifest.parent.name in MARKETPLACE_MANIFEST_DIRS
            else manifest.parent
        )
        try:
            return cls.model_validate({**data, "path": str(root.resolve())})
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}"
                for error in exc.errors()
            )
            raise MarketplaceError(f"{manifest} is not a valid marketplace: {problems}") from None

    def get_plugin(self, name: str) -> MarketplacePluginEntry | None:
        """The plugin entry called `name`, or None."""
        return next((entry for entry in self.plugins if entry.name == name), None)

    def get_skill(self, name: str) -> MarketplaceEntry | None:
        """The skill entry called `name`, or None."""
        return next((entry for entry in self.skills if entry.name == name), None)
