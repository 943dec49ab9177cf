"""Wire models of `/api/skills`: the skills an agent may use, and installing them.

The shapes are the reference server's: `POST /api/skills` gathers skills from every source
(sandbox hosts, the public catalog, the user's, an organization's, the project's),
`GET /api/skills/catalog` lists what a profile may pick, `/installed` manages the skills
installed into `~/.openhands/skills/installed/`, `/marketplace` lists what the public
catalog offers.
"""

from __future__ import annotations

from typing import Literal

from openhands.sdk.wire.base import WireAnswer, WireRequest
from pydantic import Field

DEFAULT_MARKETPLACE_PATH = "marketplaces/default.json"
"""Where a public catalog repository lists its skills (the reference's default)."""

SKILL_NAME = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
"""An installed skill's name, as a path parameter: no path separator, no `..`."""


class SkillInfo(WireAnswer):
    """One skill as clients see it (the body is `content`)."""

    name: str
    type: Literal["repo", "knowledge", "agentskills"]
    content: str
    triggers: list[str] = Field(default_factory=list)
    source: str | None = None
    description: str | None = None
    is_agentskills_format: bool = False
    disable_model_invocation: bool = False


class ExposedUrl(WireRequest):
    """A URL the sandbox exposes (a `WORKER_*` name becomes a `work_hosts` skill)."""

    name: str
    url: str
    port: int = Field(ge=0, le=65535)


class OrgConfig(WireRequest):
    """An organization's skills repository to load."""

    repository: str = Field(description="The selected repository (owner/repo).")
    provider: str = Field(description="github, gitlab, azure or bitbucket.")
    org_repo_url: str = Field(
        description="A git URL of the organization's skills repository, credentials included "
        "if it needs them (never logged)."
    )
    org_name: str = Field(description="The organization's name.")


class SandboxConfig(WireRequest):
    """What the sandbox exposes."""

    exposed_urls: list[ExposedUrl] = Field(default_factory=list, max_length=100)


class SkillsRequest(WireRequest):
    """Body of POST /api/skills: which sources to gather skills from."""

    load_public: bool = Field(default=True, description="The public catalog's skills.")
    load_user: bool = Field(default=True, description="~/.openhands/skills and installed ones.")
    load_project: bool = Field(default=True, description="The project's skills (project_dir).")
    load_org: bool = Field(default=True, description="The organizations' skills (org_configs).")
    marketplace_path: str | None = Field(
        default=DEFAULT_MARKETPLACE_PATH,
        description="The public catalog's list of skills (relative); null: all its skills.",
    )
    registered_marketplaces: list[dict[str, object]] = Field(
        default_factory=list,
        max_length=50,
        description="Accepted for the reference's clients; this server loads no skills from "
        "registered marketplaces (install them instead).",
    )
    project_dir: str | None = Field(
        default=None, description="The project folder (absolute) whose skills to load."
    )
    org_configs: list[OrgConfig] | None = Field(default=None, max_length=20)
    sandbox_config: SandboxConfig | None = None


class SkillsResponse(WireAnswer):
    """The skills gathered, and how many each source gave."""

    skills: list[SkillInfo]
    sources: dict[str, int] = Field(default_factory=dict)


class SkillCatalogEntry(SkillInfo):
    """A skill a profile may load: from the public catalog or the user's own."""

    origin: Literal["public", "user"]


class SkillCatalogResponse(WireAnswer):
    """The answer of GET /api/skills/catalog."""

    skills: list[SkillCatalogEntry]


class SyncResponse(WireAnswer):
    """The answer of POST /api/skills/sync."""

    status: Literal["success", "error"]
    message: str


class ExtensionInstallRequest(WireRequest):
    """What installing a skill or a plugin names: where it comes from, at which ref."""

    source: str = Field(
        min_length=1,
        max_length=4096,
        description="A git URL, `github:owner/repo[/path]`, or an absolute local path.",
    )
    ref: str | None = Field(default=None, max_length=255, description="Branch, tag or commit.")


class InstallSkillRequest(ExtensionInstallRequest):
    """Body of POST /api/skills/install."""

    repo_path: str | None = Field(
        default=None, max_length=1024, description="The skill's folder in the repository."
    )
    force: bool = Field(default=False, description="Replace an installed skill of that name.")


class InstalledSkillResponse(WireAnswer):
    """One installed skill."""

    name: str
    version: str = ""
    description: str = ""
    enabled: bool = True
    source: str
    resolved_ref: str | None = None
    repo_path: str | None = None
    installed_at: str
    install_path: str


class InstalledSkillsListResponse(WireAnswer):
    """The answer of GET /api/skills/installed."""

    skills: list[InstalledSkillResponse]


class UpdateSkillStateRequest(WireRequest):
    """Body of PATCH /api/skills/installed/{name}."""

    enabled: bool


class UpdateSkillStateResponse(WireAnswer):
    """The state a PATCH set."""

    name: str
    enabled: bool


class UninstallSkillResponse(WireAnswer):
    """The answer of DELETE /api/skills/installed/{name}."""

    message: str


class UpdateSkillResponse(WireAnswer):
    """The answer of POST /api/skills/installed/{name}/refresh."""

    message: str
    skill: InstalledSkillResponse


class MarketplaceSkillInfo(WireAnswer):
    """A skill (or plugin) the public catalog offers; `source` goes to /install as it is."""

    name: str
    description: str | None = None
    source: str
    installed: bool


class MarketplaceCatalogResponse(WireAnswer):
    """The answer of GET /api/skills/marketplace."""

    skills: list[MarketplaceSkillInfo]
