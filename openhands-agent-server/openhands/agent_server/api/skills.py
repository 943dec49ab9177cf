"""REST routes of skills: gather them from their sources, list the catalog, and install,
list, enable or disable, refresh and remove installed ones; the public catalog's marketplace.

The reference's paths and shapes under `/api/skills`. Installed skills live in the server's
`~/.openhands/skills/installed/` (the SDK's installer); the public catalog is
`OH_PUBLIC_SKILLS_SOURCE` (`services/skills_catalog.py`). Folders a request names (a project,
a local source) must be absolute and visible to the agent's sandbox (else 403). The skill
modules load on the first request, not at the server's start.
"""

from __future__ import annotations

from pathlib import Path as FsPath
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.api.runtime import (
    FORBIDDEN,
    blocking,
    check_source,
    project_scope,
    public_catalog,
)
from openhands.sdk.wire.skills import (
    SKILL_NAME,
    InstalledSkillResponse,
    InstalledSkillsListResponse,
    InstallSkillRequest,
    MarketplaceCatalogResponse,
    SkillCatalogEntry,
    SkillCatalogResponse,
    SkillsRequest,
    SkillsResponse,
    SyncResponse,
    UninstallSkillResponse,
    UpdateSkillResponse,
    UpdateSkillStateRequest,
    UpdateSkillStateResponse,
)

router = APIRouter(prefix="/api/skills", tags=["skills"], route_class=CheckedRoute)

SkillName = Annotated[
    str, Path(min_length=1, max_length=255, pattern=SKILL_NAME, description="The skill's name.")
]
INSTALL_ERRORS = {**error_responses(400, 409, *STORAGE), **FORBIDDEN}


def installed_response(info: Any) -> InstalledSkillResponse:
    """An installed skill's record as clients see it."""
    return InstalledSkillResponse(
        name=info.name,
        version=info.version,
        description=info.description,
        enabled=info.enabled,
        source=info.source,
        resolved_ref=info.resolved_ref,
        repo_path=info.repo_path,
        installed_at=info.installed_at,
        install_path=str(info.install_path),
    )


@router.post("", response_model=SkillsResponse, responses={**error_responses(), **FORBIDDEN})
async def get_skills(body: SkillsRequest, request: Request) -> SkillsResponse:
    """Gather the skills of every source asked for; a later source wins a name: sandbox <
    public < user < organization < project."""
    from openhands.agent_server.services.scopes import hidden_test
    from openhands.agent_server.services.skills_catalog import gather, skill_info

    scope = project_scope(request, body.project_dir)
    for index, config in enumerate((body.org_configs or []) if body.load_org else []):
        # A local repository: only one the agent's sandbox may see.
        check_source(request, config.org_repo_url, ("body", "org_configs", index, "org_repo_url"))
    folder = None if body.project_dir is None else FsPath(body.project_dir)
    hidden = hidden_test(scope.workspace) if scope is not None else (lambda _path: False)
    catalog = public_catalog(request)
    skills, sources = await blocking(request, gather, body, catalog, folder, hidden)
    return SkillsResponse(skills=[skill_info(s) for s in skills], sources=sources)


@router.get("/catalog", response_model=SkillCatalogResponse, responses=error_responses())
async def get_skill_catalog(request: Request) -> SkillCatalogResponse:
    """The skills a profile may load: the public catalog's and the user's own."""
    from openhands.agent_server.services.skills_catalog import catalog_skills, skill_info

    found = await blocking(request, catalog_skills, public_catalog(request))
    return SkillCatalogResponse(
        skills=[
            SkillCatalogEntry(
                **skill_info(skill).model_dump(), origin="public" if public else "user"
            )
            for skill, public in found
        ]
    )


@router.post("/sync", response_model=SyncResponse, responses=error_responses())
async def sync_skills(request: Request) -> SyncResponse:
    """Fetch the public catalog again (a failure is an answer with status `error`)."""
    done, message = await blocking(request, public_catalog(request).sync)
    return SyncResponse(status="success" if done else "error", message=message)


@router.post("/install", response_model=InstalledSkillResponse, responses=INSTALL_ERRORS)
async def install_skill(body: InstallSkillRequest, request: Request) -> InstalledSkillResponse:
    """Install a skill from a git URL, `github:owner/repo[/path]` or an absolute folder; 409
    if installed already (`force` replaces it), 422 if it is no skill."""
    from openhands.agent_server.services.extension_installs import installing
    from openhands.sdk.skills import install_skill as install

    check_source(request, body.source)

    def run() -> Any:
        return installing(
            "skill", lambda: install(body.source, body.ref, body.repo_path, force=body.force)
        )

    return installed_response(await blocking(request, run))


@router.get("/installed", response_model=InstalledSkillsListResponse, responses=error_responses())
async def list_installed_skills(request: Request) -> InstalledSkillsListResponse:
    """Every installed skill, enabled or not."""
    from openhands.sdk.skills import list_installed_skills as listed

    found = await blocking(request, listed)
    return InstalledSkillsListResponse(skills=[installed_response(info) for info in found])


@router.get(
    "/installed/{skill_name}", response_model=InstalledSkillResponse, responses=error_responses(404)
)
async def get_installed_skill(skill_name: SkillName, request: Request) -> InstalledSkillResponse:
    """One installed skill."""
    from openhands.agent_server.services.extension_installs import not_installed
    from openhands.sdk.skills import get_installed_skill as get

    info = await blocking(request, get, skill_name)
    if info is None:
        raise not_installed("skill", skill_name)
    return installed_response(info)


@router.patch(
    "/installed/{skill_name}",
    response_model=UpdateSkillStateResponse,
    responses=error_responses(404, *STORAGE),
)
async def set_skill_enabled(
    skill_name: SkillName, body: UpdateSkillStateRequest, request: Request
) -> UpdateSkillStateResponse:
    """Enable or disable an installed skill (a disabled one stays installed, unloaded)."""
    from openhands.agent_server.services.extension_installs import not_installed
    from openhands.sdk.skills import disable_skill, enable_skill

    if not await blocking(request, enable_skill if body.enabled else disable_skill, skill_name):
        raise not_installed("skill", skill_name)
    return UpdateSkillStateResponse(name=skill_name, enabled=body.enabled)


@router.delete(
    "/installed/{skill_name}",
    response_model=UninstallSkillResponse,
    responses=error_responses(404, *STORAGE),
)
async def uninstall_skill(skill_name: SkillName, request: Request) -> UninstallSkillResponse:
    """Remove an installed skill."""
    from openhands.agent_server.services.extension_installs import not_installed
    from openhands.sdk.skills import uninstall_skill as uninstall

    if not await blocking(request, uninstall, skill_name):
        raise not_installed("skill", skill_name)
    return UninstallSkillResponse(message=f"Skill '{skill_name}' uninstalled")


@router.post(
    "/installed/{skill_name}/refresh",
    response_model=UpdateSkillResponse,
    responses=error_responses(400, 404, *STORAGE),
)
async def refresh_skill(skill_name: SkillName, request: Request) -> UpdateSkillResponse:
    """Fetch an installed skill again from its source and ref; a failure keeps the copy."""
    from openhands.agent_server.services.extension_installs import installing, not_installed
    from openhands.sdk.skills import update_skill

    info = await blocking(request, lambda: installing("skill", lambda: update_skill(skill_name)))
    if info is None:
        raise not_installed("skill", skill_name)
    return UpdateSkillResponse(
        message=f"Skill '{skill_name}' updated", skill=installed_response(info)
    )


@router.get("/marketplace", response_model=MarketplaceCatalogResponse, responses=error_responses())
async def get_marketplace(request: Request) -> MarketplaceCatalogResponse:
    """What the public catalog offers (plugins and skills), with what is installed."""
    from openhands.agent_server.services.skills_catalog import marketplace
    from openhands.sdk.skills import list_installed_skills as listed

    def read() -> Any:
        installed = {info.name for info in listed()}
        return marketplace(public_catalog(request), installed)

    return MarketplaceCatalogResponse(skills=await blocking(request, read))
