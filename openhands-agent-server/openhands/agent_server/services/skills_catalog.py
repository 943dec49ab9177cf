"""The skills `/api/skills` gathers, and the public catalog behind its marketplace.

Sources, lowest precedence first (a later one wins a name, as in the reference): the sandbox
(`WORKER_*` URLs become a `work_hosts` skill), the public catalog, the user's skills (installed
ones included), organizations' repositories, the project's. The public catalog is
`OH_PUBLIC_SKILLS_SOURCE`: a folder or a git URL (cloned once into the git cache; `sync`
fetches it again) holding `skills/` and a marketplace. Unset, there is none: this server
fetches nothing it was not told to.

Project skills are read from a folder the request names: it must be one the agent's sandbox
may see, and a skill whose file the sandbox hides (an `AGENTS.md` linking to the server's key)
is left out, so these routes show no more than the agent could read itself.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from openhands.sdk.context.skills import Skill
from openhands.sdk.wire.skills import (
    ExposedUrl,
    MarketplaceSkillInfo,
    OrgConfig,
    SkillInfo,
    SkillsRequest,
)

logger = logging.getLogger(__name__)

WORK_HOSTS = "work_hosts"
WORKER_PREFIX = "WORKER_"


@dataclass(frozen=True)
class CatalogEntry:
    """A skill or plugin the public catalog lists."""

    name: str
    description: str | None
    source: str
    """As /install takes it (a catalog-relative path made absolute)."""
    ref: str | None = None
    repo_path: str | None = None
    plugin: bool = False
    """A true plugin (listed among the plugins, not a skill folder)."""


def skill_info(skill: Skill) -> SkillInfo:
    """A skill as clients see it."""
    return SkillInfo(
        name=skill.name,
        type=skill.get_skill_type(),
        content=skill.content,
        triggers=skill.get_triggers(),
        source=skill.source,
        description=skill.description,
        is_agentskills_format=skill.is_agentskills_format,
        disable_model_invocation=skill.disable_model_invocation,
    )


class PublicCatalog:
    """The public skills catalog (`OH_PUBLIC_SKILLS_SOURCE`), read from disk or its clone."""

    def __init__(self, source: str | None) -> None:
        """`source`: a folder or a git URL; None: no public catalog."""
        self.source = source

    def folder(self, *, update: bool = False) -> Path | None:
        """The catalog's folder (cloned on first use; fetched again with `update`)."""
        if not self.source:
            return None
        from openhands.sdk.extensions.git import fetch_repository
        from openhands.sdk.extensions.sources import is_local_path

        if is_local_path(self.source):
            folder = Path(self.source.removeprefix("file://")).expanduser()
            return folder if folder.is_dir() else None
        folder, _ = fetch_repository(self.source, update=update)
        return folder

    def skills(self, marketplace_path: str | None) -> list[Skill]:
        """The catalog's skills: those its marketplace file lists, or all (None)."""
        folder = self._folder_quietly()
        if folder is None:
            return []
        listed = _marketplace_file(folder, marketplace_path)
        if listed is None:
            return _skills_in(folder / "skills")
        skills: list[Skill] = []
        for entry in listed:
            source = entry.get("source")
            if isinstance(source, str) and not source.startswith(("http", "git@", "github:")):
                skills += _skills_in((folder / source).resolve())
        return _merge([skills])

    def entries(self) -> list[CatalogEntry]:
        """Every entry of the catalog's marketplace, plugins first (a plugin wins a name)."""
        folder = self._folder_quietly()
        if folder is None:
            return []
        from openhands.sdk.marketplace.types import Marketplace

        try:
            marketplace = Marketplace.load(folder)
        except (OSError, ValueError) as exc:
            logger.warning("The public catalog %s has no marketplace: %s", folder, exc)
            return []
        found: dict[str, CatalogEntry] = {}
        for plugin in marketplace.plugins:
            raw = plugin.source
            if isinstance(raw, str):
                entry = CatalogEntry(
                    plugin.name,
                    plugin.description,
                    _installable(raw, folder),
                    plugin=not raw.startswith("./skills/"),
                )
            else:
                location = f"github:{raw.repo}" if raw.source == "github" else raw.url or ""
                entry = CatalogEntry(
                    plugin.name, plugin.description, location, raw.ref, raw.path, plugin=True
                )
            found[plugin.name] = entry
        for skill in marketplace.skills:
            found.setdefault(
                skill.name,
                CatalogEntry(skill.name, skill.description, _installable(skill.source, folder)),
            )
        return list(found.values())

    def sync(self) -> tuple[bool, str]:
        """Fetch the catalog again; (done, what happened)."""
        if not self.source:
            return False, "No public skills catalog is configured (OH_PUBLIC_SKILLS_SOURCE)."
        from openhands.sdk.extensions.errors import ExtensionError

        try:
            folder = self.folder(update=True)
        except ExtensionError as exc:
            return False, f"Sync failed: {exc}"
        if folder is None:
            return False, f"The public skills catalog {self.source} is not a folder."
        return True, "Skills repository synced successfully"

    def _folder_quietly(self) -> Path | None:
        from openhands.sdk.extensions.errors import ExtensionError

        try:
            return self.folder()
        except ExtensionError as exc:
            logger.warning("The public skills catalog is unavailable: %s", exc)
            return None


def marketplace(catalog: PublicCatalog, installed: set[str]) -> list[MarketplaceSkillInfo]:
    """Every entry of the catalog with whether it is installed (the skills marketplace)."""
    return [
        MarketplaceSkillInfo(
            name=entry.name,
            description=entry.description,
            source=_with_coordinates(entry),
            installed=entry.name in installed,
        )
        for entry in catalog.entries()
    ]


def _with_coordinates(entry: CatalogEntry) -> str:
    """A source string /install understands: `source@ref/path` for a repository entry."""
    source = entry.source
    if entry.ref:
        source = f"{source}@{entry.ref}"
    if entry.repo_path:
        source = f"{source}/{entry.repo_path}"
    return source


def sandbox_skill(urls: list[ExposedUrl]) -> Skill | None:
    """The `work_hosts` skill telling the agent which web hosts it may use, if any."""
    hosts = [f"* {url.url} (port {url.port})" for url in urls if url.name.startswith(WORKER_PREFIX)]
    if not hosts:
        return None
    content = (
        "The user has access to the following hosts for accessing a web application, each "
        "of which has a corresponding port:\n" + "\n".join(hosts)
    )
    return Skill(name=WORK_HOSTS, content=content)


def org_skills(configs: list[OrgConfig]) -> list[Skill]:
    """The skills of organizations' repositories (cloned into a temporary folder, then
    removed: their URLs may carry credentials); a repository that fails is skipped."""
    from openhands.sdk.extensions.errors import ExtensionError
    from openhands.sdk.extensions.git import fetch_repository

    found: list[list[Skill]] = []
    for config in configs:
        scratch = Path(tempfile.mkdtemp(prefix="oh-org-skills-"))
        try:
            folder, _ = fetch_repository(config.org_repo_url, cache_dir=scratch)
            found.append(
                _merge([_skills_in(folder / "skills"), _skills_in(folder / "microagents")])
            )
        except ExtensionError:
            logger.info("The skills repository of %s is unavailable", config.org_name)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return _merge(list(reversed(found)))  # a later repository wins a name


def visible_skills(skills: list[Skill], hidden: Callable[[str | Path], bool]) -> list[Skill]:
    """`skills` without those whose file the sandbox hides (`hidden` is `scopes.hidden_test`)."""
    return [s for s in skills if s.source is None or not hidden(s.source)]


def merge_by_precedence(groups: list[list[Skill]]) -> list[Skill]:
    """One skill per name; a later group wins (the reference's precedence)."""
    return _merge(list(reversed(groups)))


def _merge(groups: list[list[Skill]]) -> list[Skill]:
    """One skill per name, the first group that has it winning."""
    seen: dict[str, Skill] = {}
    for group in groups:
        for skill in group:
            seen.setdefault(skill.name, skill)
    return list(seen.values())


def _skills_in(folder: Path) -> list[Skill]:
    from openhands.sdk.context.skill_loading import load_skills_from_dir

    repo, knowledge, agentskills = load_skills_from_dir(folder)
    return [*repo.values(), *knowledge.values(), *agentskills.values()]


def _marketplace_file(folder: Path, marketplace_path: str | None) -> list[dict] | None:
    """The skill entries of the catalog's marketplace file, or None to take every skill."""
    if marketplace_path is None:
        return None
    path = (folder / marketplace_path).resolve()
    if not path.is_relative_to(folder.resolve()) or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    entries = [*data.get("skills", []), *data.get("plugins", [])] if isinstance(data, dict) else []
    return [entry for entry in entries if isinstance(entry, dict)]


def _installable(source: str, folder: Path) -> str:
    """A catalog entry's source as /install takes it (a relative path made absolute)."""
    if source.startswith(("./", "../")) or not any(
        source.startswith(p) for p in ("/", "http", "git@", "github:", "file:")
    ):
        return str((folder / source).resolve())
    return source


def gather(
    request: SkillsRequest,
    catalog: PublicCatalog,
    project_dir: Path | None,
    hidden: Callable[[str | Path], bool],
) -> tuple[list[Skill], dict[str, int]]:
    """The skills of every source `request` asks for, merged, and how many each gave."""
    from openhands.sdk.context.skill_loading import load_project_skills
    from openhands.sdk.context.user_skills import load_user_skills

    sandbox: list[Skill] = []
    if request.sandbox_config is not None:
        made = sandbox_skill(request.sandbox_config.exposed_urls)
        sandbox = [made] if made is not None else []
    public = catalog.skills(request.marketplace_path) if request.load_public else []
    user = load_user_skills() if request.load_user else []
    org = org_skills(request.org_configs) if request.load_org and request.org_configs else []
    project: list[Skill] = []
    if request.load_project and project_dir is not None:
        project = visible_skills(load_project_skills(project_dir), hidden)
    groups = {"sandbox": sandbox, "public": public, "user": user, "org": org, "project": project}
    merged = merge_by_precedence(list(groups.values()))
    return merged, {name: len(found) for name, found in groups.items()}


def catalog_skills(catalog: PublicCatalog) -> list[tuple[Skill, bool]]:
    """The public and user skills a profile may pick, each with whether it is public."""
    from openhands.sdk.context.user_skills import load_user_skills

    public = catalog.skills(None)
    user = load_user_skills()
    user_names = {skill.name for skill in user}
    merged = merge_by_precedence([public, user])
    return [(skill, skill.name not in user_names) for skill in merged]
