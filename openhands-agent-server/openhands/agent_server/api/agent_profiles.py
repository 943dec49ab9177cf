"""REST routes of agent profiles: /api/agent-profiles (named, secret-free agent specs a
conversation is created from with `agent_profile_id`). Loaded on first use (api/lazy.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Request, status
from fastapi.exceptions import RequestValidationError
from openhands.agent_server.api.deps import control_pool, lazy_service, server_settings
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.errors import NotFoundError
from openhands.agent_server.services.agent_profile_launch import diagnose, seed_profile
from openhands.agent_server.services.agent_profiles import AgentProfiles
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.settings import PROFILE_NAME_PATTERN, SettingsUpdateRequest
from openhands.sdk.wire.agent_profiles import (
    ActivateAgentProfileResponse,
    AgentProfile,
    AgentProfileDetailResponse,
    AgentProfileDiagnostics,
    AgentProfileListResponse,
    AgentProfileMutationResponse,
    MaterializeAgentProfileRequest,
    RenameAgentProfileRequest,
)
from pydantic import ValidationError

router = APIRouter(prefix="/api/agent-profiles", tags=["agent profiles"], route_class=CheckedRoute)

Stores = Annotated[ServerSettings, Depends(server_settings)]
Controls = Annotated[BlockingPool, Depends(control_pool)]
ProfileName = Annotated[
    str,
    Path(pattern=PROFILE_NAME_PATTERN, description="1-64 letters, digits, '.', '_', '-'."),
]


async def agent_profiles(request: Request) -> AgentProfiles:
    """The server's agent profiles (read on first use)."""
    state = request.app.state

    def build() -> AgentProfiles:
        folder = state.server_settings.folder
        return AgentProfiles(folder, max_count=state.config.max_agent_profiles).load()

    return await lazy_service(request, "agent_profiles", build)


Profiles = Annotated[AgentProfiles, Depends(agent_profiles)]


def _checked(data: dict[str, Any], name: str) -> AgentProfile:
    """The body as a profile named `name` (the server keeps id and revision); 422 naming
    the bad field."""
    body = {k: v for k, v in data.items() if k not in ("id", "revision")}
    try:
        return AgentProfile.model_validate({**body, "name": name})
    except ValidationError as exc:
        raise RequestValidationError(
            [{"loc": ("body", *e["loc"]), "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
        ) from None


def _ensure_active(profiles: AgentProfiles, stores: ServerSettings) -> None:
    """Keep some profile active (blocking): a missing or dangling pointer moves to
    `default`, made from the stored settings when no profile exists."""
    with profiles.lock:
        active = stores.settings.settings.active_agent_profile_id
        if active is not None and profiles.by_id(active) is not None:
            return
        if profiles.is_empty():
            target = profiles.save(seed_profile(stores))
        else:
            target = profiles.get(profiles.infos()[0].name)
        stores.settings.update(SettingsUpdateRequest(active_agent_profile_id=str(target.id)))


@router.get("", response_model=AgentProfileListResponse, responses=error_responses(409))
async def list_agent_profiles(
    profiles: Profiles, stores: Stores, controls: Controls
) -> AgentProfileListResponse:
    """Every profile and the active one's id. Some profile is always active: with none,
    `default` is made from the stored settings and activated."""
    await controls.run_to_completion(_ensure_active, profiles, stores)
    return AgentProfileListResponse(
        profiles=profiles.infos(),
        active_agent_profile_id=stores.settings.settings.active_agent_profile_id,
    )


@router.get("/{name}", response_model=AgentProfileDetailResponse, responses=error_responses(404))
async def get_agent_profile(name: ProfileName, profiles: Profiles) -> AgentProfileDetailResponse:
    """One profile (it holds no secret)."""
    return AgentProfileDetailResponse(name=name, profile=profiles.get(name).model_dump(mode="json"))


@router.post(
    "/{name}",
    response_model=AgentProfileMutationResponse,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(409, *STORAGE),
)
async def save_agent_profile(
    name: ProfileName,
    profiles: Profiles,
    controls: Controls,
    body: Annotated[dict[str, Any], Body(description="An AgentProfile (its name is the path's).")],
) -> AgentProfileMutationResponse:
    """Save a profile under `name`, replacing a namesake (which keeps its id); 409 past
    OH_MAX_AGENT_PROFILES. Fields this server does not do (persona, the routing tool, ACP)
    are a 422 saying so."""
    await controls.run_to_completion(profiles.save, _checked(body, name))
    return AgentProfileMutationResponse(name=name, message=f"Agent profile '{name}' saved")


@router.delete(
    "/{name}", response_model=AgentProfileMutationResponse, responses=error_responses(*STORAGE)
)
async def delete_agent_profile(
    name: ProfileName, profiles: Profiles, stores: Stores, controls: Controls
) -> AgentProfileMutationResponse:
    """Delete a profile (none of that name: nothing changes); deleting the active one makes
    `default` active (made from the settings if it is gone)."""
    deleted = await controls.run_to_completion(profiles.delete, name)
    if deleted is not None and stores.settings.settings.active_agent_profile_id == str(deleted.id):
        await controls.run_to_completion(_ensure_active, profiles, stores)
    return AgentProfileMutationResponse(name=name, message=f"Agent profile '{name}' deleted")


@router.post(
    "/{name}/rename",
    response_model=AgentProfileMutationResponse,
    responses=error_responses(404, 409, *STORAGE),
)
async def rename_agent_profile(
    name: ProfileName, request: RenameAgentProfileRequest, profiles: Profiles, controls: Controls
) -> AgentProfileMutationResponse:
    """Rename a profile; its id (and so the active pointer) stays. 404 unknown, 409 taken."""
    await controls.run_to_completion(profiles.rename, name, request.new_name)
    message = (
        f"Agent profile '{name}' unchanged (same name)"
        if request.new_name == name
        else f"Agent profile '{name}' renamed to '{request.new_name}'"
    )
    return AgentProfileMutationResponse(name=request.new_name, message=message)


@router.post(
    "/{profile_id}/activate",
    response_model=ActivateAgentProfileResponse,
    responses=error_responses(404, 409, *STORAGE),
)
async def activate_agent_profile(
    profile_id: Annotated[str, Path(min_length=1, max_length=128)],
    profiles: Profiles,
    stores: Stores,
    controls: Controls,
) -> ActivateAgentProfileResponse:
    """Make the profile with this id the active one (only the pointer moves; the stored
    agent settings stay as they are). 404 for an unknown id."""
    if profiles.by_id(profile_id) is None:
        raise NotFoundError(f"Agent profile with id {profile_id!r} not found.")
    await controls.run_to_completion(
        stores.settings.update, SettingsUpdateRequest(active_agent_profile_id=profile_id)
    )
    return ActivateAgentProfileResponse(
        id=profile_id, message=f"Agent profile '{profile_id}' activated"
    )


@router.post(
    "/{name}/materialize",
    response_model=AgentProfileDiagnostics,
    responses=error_responses(404),
)
async def materialize_agent_profile(
    name: ProfileName,
    profiles: Profiles,
    stores: Stores,
    request: MaterializeAgentProfileRequest | None = None,
) -> AgentProfileDiagnostics:
    """What launching the stored profile (or the draft `profile`) would give, without
    launching it: `valid`, the `errors` (an unknown LLM profile, MCP server or tool), and
    the agent settings it resolves to (no key)."""
    if request is not None and request.profile is not None:
        profile = _checked(request.profile, name)
    else:
        profile = profiles.get(name)
    return diagnose(profile, stores)[0]
