"""REST routes of plugins: list those available here, pin one without installing it, and
install, list, enable or disable, refresh and remove installed ones; the public catalog's
plugins.

The reference's paths and shapes under `/api/plugins`. Installed plugins live in the server's
`~/.openhands/plugins/installed/` (the SDK's installer; `services/extension_installs.py` maps
its errors); folders a request names must be absolute and visible to the agent's sandbox
(else 403). The plugin modules load on the first request, not at the server's start.
"""

from __future__ import annotations

import asyncio
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
from openhands.agent_server.errors import ServerError
from openhands.sdk.wire.plugins import (
    PLUGIN_NAME,
    FetchPluginRequest,
    FetchPluginResponse,
    InstalledPluginResponse,
    InstalledPluginsListResponse,
    InstallPluginRequest,
    PluginInfo,
    PluginMarketplaceResponse,
    PluginsRequest,
    PluginsResponse,
    UninstallPluginResponse,
    UpdatePluginResponse,
    UpdatePluginStateRequest,
    UpdatePluginStateResponse,
)

router = APIRouter(prefix="/api/plugins", tags=["plugins"], route_class=CheckedRoute)

PluginName = Annotated[
    str, Path(min_length=1, max_length=255, pattern=PLUGIN_NAME, description="The plugin's name.")
]
INSTALL_ERRORS = {**error_responses(400, 409, *STORAGE), **FORBIDDEN}


class FetchTimeoutError(ServerError):
    """The plugin's source did not arrive within the request's `timeout`."""

    status_code = 504


def installed_response(info: Any) -> InstalledPluginResponse:
    """An installed plugin's record with its contents (null when it no longer loads)."""
    from openhands.agent_server.services.plugins_catalog import contents_of

    loaded = contents_of(info.install_path)
    return InstalledPluginResponse(
        name=info.name,
        version=info.version,
        description=info.description,
        enabled=info.enabled,
        source=info.source,
        resolved_ref=info.resolved_ref,
        repo_path=info.repo_path,
        installed_at=info.installed_at,
        install_path=str(info.install_path),
        skills=None if loaded is None else loaded[0],
        files=None if loaded is None else loaded[1],
    )


@router.post("", response_model=PluginsResponse, responses={**error_responses(), **FORBIDDEN})
async def get_plugins(body: PluginsRequest, request: Request) -> PluginsResponse:
    """The plugins available here: the user's (installed ones included) and the project's."""
    from openhands.agent_server.services.plugins_catalog import available, contents
    from openhands.agent_server.services.scopes import hidden_test

    scope = project_scope(request, body.project_dir if body.load_project else None)
    folder = FsPath(body.project_dir) if scope is not None and body.project_dir else None
    hidden = hidden_test(scope.workspace) if scope is not None else (lambda _path: False)

    def read() -> list[PluginInfo]:
        found = available(load_user=body.load_user, project_dir=folder, hidden=hidden)
        infos = []
        for plugin in found:
            skills, files = contents(plugin)
            infos.append(
                PluginInfo(
                    name=plugin.name,
                    version=plugin.version,
                    description=plugin.description,
                    path=plugin.path,
                    skills=skills,
                    files=files,
                )
            )
        return infos

    return PluginsResponse(plugins=await blocking(request, read))


@router.post(
    "/fetch",
    response_model=FetchPluginResponse,
    responses={**error_responses(502, 504), **FORBIDDEN},
)
async def fetch_plugin(body: FetchPluginRequest, request: Request) -> FetchPluginResponse:
    """Fetch and pin a plugin source without installing or enabling it; `${NAME}` in
    `source` and `ref` takes the value of that secret of the request."""
    from openhands.agent_server.services.plugins_catalog import expand, fetch

    resolver = request.app.state.server_settings.conversation_secrets

    def values() -> dict[str, str]:
        # Resolving a secret may read the store or call its URL: in a worker thread.
        sources = resolver.resolve(dict(body.secrets))
        return {name: source.get_value() or "" for name, source in sources.items()}

    secrets = await blocking(request, values)
    check_source(request, expand(body.source, secrets, "source"))
    work = blocking(request, fetch, body.source, body.ref, body.repo_path, secrets)
    try:
        return await asyncio.wait_for(work, timeout=body.timeout)
    except TimeoutError:
        raise FetchTimeoutError(
            f"The plugin source did not arrive within {body.timeout} s (timeout)"
        ) from None


@router.post("/install", response_model=InstalledPluginResponse, responses=INSTALL_ERRORS)
async def install_plugin(body: InstallPluginRequest, request: Request) -> InstalledPluginResponse:
    """Install a plugin from a git URL, `github:owner/repo[/path]` or an absolute folder; 409
    if installed already (`force` replaces it), 422 if it is no plugin."""
    from openhands.agent_server.services.extension_installs import installing
    from openhands.sdk.plugin import install_plugin as install

    check_source(request, body.source)

    def run() -> InstalledPluginResponse:
        info = installing(
            "plugin", lambda: install(body.source, body.ref, body.repo_path, force=body.force)
        )
        return installed_response(info)

    return await blocking(request, run)


@router.get("/installed", response_model=InstalledPluginsListResponse, responses=error_responses())
async def list_installed_plugins(request: Request) -> InstalledPluginsListResponse:
    """Every installed plugin, enabled or not."""
    from openhands.sdk.plugin import list_installed_plugins as listed

    def read() -> list[InstalledPluginResponse]:
        return [installed_response(info) for info in listed()]

    return InstalledPluginsListResponse(plugins=await blocking(request, read))


@router.get(
    "/installed/{plugin_name}",
    response_model=InstalledPluginResponse,
    responses=error_responses(404),
)
async def get_installed_plugin(
    plugin_name: PluginName, request: Request
) -> InstalledPluginResponse:
    """One installed plugin."""
    from openhands.agent_server.services.extension_installs import not_installed
    from openhands.sdk.plugin import get_installed_plugin as get

    info = await blocking(request, get, plugin_name)
    if info is None:
        raise not_installed("plugin", plugin_name)
    return await blocking(request, installed_response, info)


@router.patch(
    "/installed/{plugin_name}",
    response_model=UpdatePluginStateResponse,
    responses=error_responses(404, *STORAGE),
)
async def set_plugin_enabled(
    plugin_name: PluginName, body: UpdatePluginStateRequest, request: Request
) -> UpdatePluginStateResponse:
    """Enable or disable an installed plugin."""
    from openhands.agent_server.services.extension_installs import not_installed
    from openhands.sdk.plugin import disable_plugin, enable_plugin

    if not await blocking(request, enable_plugin if body.enabled else disable_plugin, plugin_name):
        raise not_installed("plugin", plugin_name)
    return UpdatePluginStateResponse(name=plugin_name, enabled=body.enabled)


@router.delete(
    "/installed/{plugin_name}",
    response_model=UninstallPluginResponse,
    responses=error_responses(404, *STORAGE),
)
async def uninstall_plugin(plugin_name: PluginName, request: Request) -> UninstallPluginResponse:
    """Remove an installed plugin."""
    from openhands.agent_server.services.extension_installs import not_installed
    from openhands.sdk.plugin import uninstall_plugin as uninstall

    if not await blocking(request, uninstall, plugin_name):
        raise not_installed("plugin", plugin_name)
    return UninstallPluginResponse(message=f"Plugin '{plugin_name}' uninstalled")


@router.post(
    "/installed/{plugin_name}/refresh",
    response_model=UpdatePluginResponse,
    responses=error_responses(400, 404, *STORAGE),
)
async def refresh_plugin(plugin_name: PluginName, request: Request) -> UpdatePluginResponse:
    """Fetch an installed plugin again from its source and ref; a failure keeps the copy."""
    from openhands.agent_server.services.extension_installs import installing, not_installed
    from openhands.sdk.plugin import update_plugin

    def run() -> InstalledPluginResponse | None:
        info = installing("plugin", lambda: update_plugin(plugin_name))
        return None if info is None else installed_response(info)

    found = await blocking(request, run)
    if found is None:
        raise not_installed("plugin", plugin_name)
    return UpdatePluginResponse(message=f"Plugin '{plugin_name}' updated", plugin=found)


@router.get("/marketplace", response_model=PluginMarketplaceResponse, responses=error_responses())
async def get_plugin_marketplace(request: Request) -> PluginMarketplaceResponse:
    """The public catalog's plugins, with coordinates to load them and what is installed."""
    from openhands.agent_server.services.plugins_catalog import marketplace_plugins
    from openhands.sdk.plugin import list_installed_plugins as listed

    def read() -> Any:
        return marketplace_plugins(public_catalog(request), {info.name for info in listed()})

    return PluginMarketplaceResponse(plugins=await blocking(request, read))
