"""REST routes of meta profiles: /api/meta-profiles (model-routing configurations, stored
for the clients that manage them; no agent here routes with them). Loaded on first use
(api/lazy.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request, status
from openhands.agent_server.api.deps import control_pool, lazy_service
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.services.meta_profiles import MetaProfiles
from openhands.sdk.settings import PROFILE_NAME_PATTERN
from openhands.sdk.wire.meta_profiles import (
    ActivateMetaProfileResponse,
    MetaProfile,
    MetaProfileDetailResponse,
    MetaProfileListResponse,
    MetaProfileMutationResponse,
)

router = APIRouter(prefix="/api/meta-profiles", tags=["meta profiles"], route_class=CheckedRoute)

Controls = Annotated[BlockingPool, Depends(control_pool)]
Name = Annotated[
    str,
    Path(pattern=PROFILE_NAME_PATTERN, description="1-64 letters, digits, '.', '_', '-'."),
]


async def meta_profiles(request: Request) -> MetaProfiles:
    """The server's meta profiles (read on first use)."""
    state = request.app.state

    def build() -> MetaProfiles:
        folder = state.server_settings.folder
        return MetaProfiles(folder, max_count=state.config.max_profiles).load()

    return await lazy_service(request, "meta_profiles", build)


Stored = Annotated[MetaProfiles, Depends(meta_profiles)]


@router.get("", response_model=MetaProfileListResponse, responses=error_responses(409))
async def list_meta_profiles(stored: Stored) -> MetaProfileListResponse:
    """Every meta profile (none is active here: no agent routes between models)."""
    return MetaProfileListResponse(meta_profiles=stored.infos())


@router.get("/{name}", response_model=MetaProfileDetailResponse, responses=error_responses(404))
async def get_meta_profile(name: Name, stored: Stored) -> MetaProfileDetailResponse:
    """One meta profile."""
    return MetaProfileDetailResponse(name=name, config=stored.get(name))


@router.post(
    "/{name}",
    response_model=MetaProfileMutationResponse,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(409, *STORAGE),
)
async def save_meta_profile(
    name: Name, body: MetaProfile, stored: Stored, controls: Controls
) -> MetaProfileMutationResponse:
    """Save a meta profile (classes, or a prompt template holding {{ instance_text }});
    409 past OH_MAX_PROFILES."""
    await controls.run_to_completion(stored.save, name, body)
    return MetaProfileMutationResponse(name=name, message=f"Meta-profile '{name}' saved")


@router.delete(
    "/{name}", response_model=MetaProfileMutationResponse, responses=error_responses(*STORAGE)
)
async def delete_meta_profile(
    name: Name, stored: Stored, controls: Controls
) -> MetaProfileMutationResponse:
    """Delete a meta profile (none of that name: nothing changes)."""
    await controls.run_to_completion(stored.delete, name)
    return MetaProfileMutationResponse(name=name, message=f"Meta-profile '{name}' deleted")


@router.post(
    "/{name}/activate",
    response_model=ActivateMetaProfileResponse,
    responses=error_responses(404),
)
async def activate_meta_profile(name: Name, stored: Stored) -> ActivateMetaProfileResponse:
    """Answers `applied: false` and changes nothing (as the reference does for agents that
    cannot route): this server's agents have no model-routing tool. 404 if unknown."""
    stored.get(name)
    return ActivateMetaProfileResponse(
        name=name,
        message=f"Meta-profile '{name}' not activated: this server's agents cannot route "
        "between models",
        applied=False,
    )
