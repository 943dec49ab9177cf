"""REST routes of the stored LLM profiles: /api/profiles.

A profile is a named LLM configuration whose key is sealed at rest and never answered
(`api_key_set` says whether one is stored). Conversations use one by name
(`StartConversationRequest.llm_profile`, or an LLM from `RemoteWorkspace.get_llm(profile)`),
goals for their judge (`judge_llm_profile`), and the OpenAI-compatible gateway lists each as
the model `openhands_<name>`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, status
from openhands.agent_server.api.deps import control_pool, server_settings
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.settings import (
    PROFILE_NAME_PATTERN,
    ProfileDetailResponse,
    ProfileListResponse,
    ProfileMutationResponse,
    SaveProfileRequest,
    SettingsUpdateRequest,
)
from pydantic import BaseModel

router = APIRouter(prefix="/api/profiles", tags=["profiles"], route_class=CheckedRoute)

Stores = Annotated[ServerSettings, Depends(server_settings)]
Controls = Annotated[BlockingPool, Depends(control_pool)]
ProfileName = Annotated[
    str,
    Path(
        pattern=PROFILE_NAME_PATTERN,
        description="1-64 characters: a letter or digit, then letters, digits, '.', '_', '-'.",
    ),
]


@router.get("", response_model=ProfileListResponse, responses=error_responses())
async def list_profiles(stores: Stores) -> ProfileListResponse:
    """Every profile (model, base URL, whether a key is stored) and the active one."""
    active = stores.settings.active_profile
    return ProfileListResponse(profiles=stores.profiles.infos(), active_profile=active)


@router.get("/{name}", response_model=ProfileDetailResponse, responses=error_responses(404))
async def get_profile(name: ProfileName, stores: Stores) -> ProfileDetailResponse:
    """One profile's LLM settings (`api_key` always null)."""
    return stores.profiles.detail(name)


@router.post(
    "/{name}",
    response_model=ProfileMutationResponse,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(409, *STORAGE),
)
async def save_profile(
    name: ProfileName, request: SaveProfileRequest, stores: Stores, controls: Controls
) -> ProfileMutationResponse:
    """Save an LLM configuration under `name` (replacing one of that name); 201 once on disk."""
    await controls.run_to_completion(
        stores.profiles.save, name, request.llm, include_secrets=request.include_secrets
    )
    return ProfileMutationResponse(name=name, message=f"Profile '{name}' saved")


@router.delete(
    "/{name}", response_model=ProfileMutationResponse, responses=error_responses(*STORAGE)
)
async def delete_profile(
    name: ProfileName, stores: Stores, controls: Controls
) -> ProfileMutationResponse:
    """Delete a profile; deleting one that does not exist changes nothing (200, as in the
    reference). Conversations created with `llm_profile` keep the copy sealed with them."""
    if not await controls.run_to_completion(stores.profiles.delete, name):
        return ProfileMutationResponse(name=name, message=f"Profile '{name}' did not exist")
    await controls.run_to_completion(stores.settings.forget_profile, name)
    return ProfileMutationResponse(name=name, message=f"Profile '{name}' deleted")


class ActivateProfileResponse(BaseModel):
    """POST /api/profiles/{name}/activate."""

    name: str
    message: str
    llm_applied: bool = True


@router.post(
    "/{name}/activate",
    response_model=ActivateProfileResponse,
    responses=error_responses(404, 409, *STORAGE),
)
async def activate_profile(
    name: ProfileName, stores: Stores, controls: Controls
) -> ActivateProfileResponse:
    """Make `name` the active profile: its LLM becomes the stored settings' LLM."""
    profile = stores.profiles.get(name)
    request = SettingsUpdateRequest(active_profile=name)
    await controls.run_to_completion(stores.settings.update, request, profile_llm=profile.llm)
    return ActivateProfileResponse(
        name=name, message=f"Profile '{name}' activated and applied to the settings"
    )
