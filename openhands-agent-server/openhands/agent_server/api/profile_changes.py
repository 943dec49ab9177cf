"""REST routes that rename an LLM profile or check a draft before it is saved:
POST /api/profiles/{name}/rename and /validate. Loaded on first use (api/lazy.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request
from openhands.agent_server.api.deps import control_pool, server_settings
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.services.llm_validation import ValidateProfileResponse, validate_llm
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.llm import LLM
from openhands.sdk.settings import PROFILE_NAME_PATTERN, ProfileMutationResponse
from openhands.sdk.wire import PROFILE_USAGE_PREFIX, WireRequest
from pydantic import Field

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


class RenameProfileRequest(WireRequest):
    """Body of POST /api/profiles/{name}/rename."""

    new_name: str = Field(pattern=PROFILE_NAME_PATTERN, description="The profile's new name.")


class ValidateProfileRequest(WireRequest):
    """Body of POST /api/profiles/{name}/validate: the LLM to try (a draft, or a stored
    profile's settings without their key: the stored key of the same endpoint is used)."""

    llm: LLM


@router.post(
    "/{name}/rename",
    response_model=ProfileMutationResponse,
    responses=error_responses(404, 409, *STORAGE),
)
async def rename_profile(
    name: ProfileName, request: RenameProfileRequest, stores: Stores, controls: Controls
) -> ProfileMutationResponse:
    """Rename a profile (the active profile follows). 404 if it does not exist, 409 if the new
    name is taken; the same name changes nothing."""
    new_name = request.new_name
    await controls.run_to_completion(stores.profiles.rename, name, new_name)
    if new_name == name:
        return ProfileMutationResponse(name=name, message=f"Profile '{name}' unchanged")
    await controls.run_to_completion(stores.settings.rename_profile, name, new_name)
    return ProfileMutationResponse(
        name=new_name, message=f"Profile '{name}' renamed to '{new_name}'"
    )


@router.post(
    "/{name}/validate", response_model=ValidateProfileResponse, responses=error_responses()
)
async def validate_profile(
    name: ProfileName, request: ValidateProfileRequest, stores: Stores, http_request: Request
) -> ValidateProfileResponse:
    """Call the LLM once (a few tokens, no retries, at most 15 s) and say whether it
    works: `valid`, or `error` with its type and message. Transient failures (rate limits,
    timeouts) pass. Nothing is saved. A draft without a key gets the stored key of profile
    `name` (or of the settings' LLM) when its model and base URL are the same."""
    llm = request.llm
    if llm.api_key is None and "usage_id" not in llm.model_fields_set:
        llm = llm.model_copy(update={"usage_id": f"{PROFILE_USAGE_PREFIX}{name}"})
    llm = llm.model_copy()
    stores.llm_defaults.fill_llm(llm)
    return await http_request.app.state.pools.runs.run(validate_llm, llm)
