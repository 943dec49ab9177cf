"""Wire models of `/api/plugins`: plugins available here, fetching one, installing them.

The shapes are the reference server's: `POST /api/plugins` lists the plugins found locally
(the user's, the enabled installed ones, the project's), `POST /api/plugins/fetch` pins a
source without installing it, `/installed` manages `~/.openhands/plugins/installed/`,
`/marketplace` lists the public catalog's plugins with coordinates a conversation can load.
"""

from __future__ import annotations

from typing import Any

from openhands.sdk.secret.secrets import SecretSpec
from openhands.sdk.wire.base import WireAnswer, WireRequest
from openhands.sdk.wire.skills import ExtensionInstallRequest
from pydantic import Field

PLUGIN_NAME = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
"""An installed plugin's name (kebab-case), as a path parameter."""


class PluginSkillSummary(WireAnswer):
    """A skill a plugin brings (its commands included, as `<plugin>:<command>`)."""

    name: str
    description: str | None = None


class PluginsRequest(WireRequest):
    """Body of POST /api/plugins: which local plugins to list."""

    load_user: bool = Field(
        default=True,
        description="~/.agents/plugins, ~/.openhands/plugins and the enabled installed plugins.",
    )
    load_project: bool = Field(default=True, description="The project's plugins (project_dir).")
    project_dir: str | None = Field(
        default=None, description="The project folder (absolute) whose plugins to list."
    )


class PluginInfo(WireAnswer):
    """A plugin available here."""

    name: str
    version: str = ""
    description: str = ""
    path: str = ""
    skills: list[PluginSkillSummary] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list, description="Relative to `path`.")


class PluginsResponse(WireAnswer):
    """The answer of POST /api/plugins."""

    plugins: list[PluginInfo]


class InstallPluginRequest(ExtensionInstallRequest):
    """Body of POST /api/plugins/install."""

    repo_path: str | None = Field(
        default=None, max_length=1024, description="The plugin's folder in the repository."
    )
    force: bool = Field(default=False, description="Replace an installed plugin of that name.")


class FetchPluginRequest(WireRequest):
    """Body of POST /api/plugins/fetch: pin a source without installing it."""

    source: str = Field(min_length=1, max_length=4096, description="The plugin's source.")
    ref: str | None = Field(default=None, max_length=255, description="Branch, tag or commit.")
    repo_path: str | None = Field(default=None, max_length=1024)
    secrets: dict[str, SecretSpec] = Field(
        default_factory=dict,
        max_length=50,
        description="Values for `${NAME}` placeholders in `source` and `ref` (never logged).",
    )
    timeout: int = Field(default=60, ge=1, le=600, description="Seconds the fetch may take.")


class FetchPluginResponse(WireAnswer):
    """What a fetched plugin is."""

    path: str
    resolved_ref: str | None
    source: str
    repo_path: str | None
    manifest: dict[str, Any]
    skills: list[str]
    commands: list[str]


class InstalledPluginResponse(WireAnswer):
    """One installed plugin (`skills` and `files` null when it no longer loads)."""

    name: str
    version: str = ""
    description: str = ""
    enabled: bool = True
    source: str
    resolved_ref: str | None = None
    repo_path: str | None = None
    installed_at: str
    install_path: str
    skills: list[PluginSkillSummary] | None = None
    files: list[str] | None = None


class InstalledPluginsListResponse(WireAnswer):
    """The answer of GET /api/plugins/installed."""

    plugins: list[InstalledPluginResponse]


class UpdatePluginStateRequest(WireRequest):
    """Body of PATCH /api/plugins/installed/{name}."""

    enabled: bool


class UpdatePluginStateResponse(WireAnswer):
    """The state a PATCH set."""

    name: str
    enabled: bool


class UninstallPluginResponse(WireAnswer):
    """The answer of DELETE /api/plugins/installed/{name}."""

    message: str


class UpdatePluginResponse(WireAnswer):
    """The answer of POST /api/plugins/installed/{name}/refresh."""

    message: str
    plugin: InstalledPluginResponse


class MarketplacePluginInfo(WireAnswer):
    """A plugin the public catalog offers, with coordinates a conversation can load."""

    name: str
    description: str | None = None
    source: str
    ref: str | None = None
    repo_path: str | None = None
    installed: bool
    path: str | None = None
    skills: list[PluginSkillSummary] | None = None
    files: list[str] | None = None


class PluginMarketplaceResponse(WireAnswer):
    """The answer of GET /api/plugins/marketplace."""

    plugins: list[MarketplacePluginInfo]
