"""REST routes of the stored settings and secrets: /api/settings and /api/settings/secrets.

Answers never hold a secret: `agent_settings.llm.api_key` is always null (`llm_api_key_is_set`
says whether one is stored), and secrets are listed by name and description; a stored value
only reaches the commands of an agent whose conversation names it (`LookupSecret`). The
reference's `X-Expose-Secrets` header is accepted and changes nothing.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path
from openhands.agent_server.api.deps import control_pool, server_settings
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.errors import BadRequestError, InvalidRequestError
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.llm import LLM
from openhands.sdk.settings import (
    SECRET_NAME_PATTERN,
    SecretCreateRequest,
    SecretItemResponse,
    SecretsListResponse,
    SettingsResponse,
    SettingsUpdateRequest,
)
from pydantic import BaseModel

router = APIRouter(prefix="/api/settings", tags=["settings"], route_class=CheckedRoute)

Stores = Annotated[ServerSettings, Depends(server_settings)]
Controls = Annotated[BlockingPool, Depends(control_pool)]
SecretName = Annotated[
    str, Path(pattern=SECRET_NAME_PATTERN, description="The secret's name, e.g. GITHUB_TOKEN.")
]

UPDATE_FIELDS = (
    "agent_settings_diff",
    "conversation_settings_diff",
    "misc_settings_diff",
    "active_profile",
    "active_agent_profile_id",
)


class SecretDeleted(BaseModel):
    """The answer of DELETE /api/settings/secrets/{name}."""

    deleted: bool = True


@router.get("", response_model=SettingsResponse, responses=error_responses(409))
async def get_settings(stores: Stores) -> SettingsResponse:
    """The stored settings, without any secret."""
    return stores.settings.response()


@router.patch("", response_model=SettingsResponse, responses=error_responses(400, 409, *STORAGE))
async def update_settings(
    request: SettingsUpdateRequest, stores: Stores, controls: Controls
) -> SettingsResponse:
    """Deep-merge the diffs into the stored settings; answered once they are on disk."""
    if not request.model_fields_set & set(UPDATE_FIELDS):
        raise BadRequestError(
            f"Nothing to change: give at least one of {', '.join(UPDATE_FIELDS)}."
        )
    profile_llm: LLM | None = None
    if request.active_profile is not None:
        profile = stores.profiles.find(request.active_profile)
        if profile is None:
            raise InvalidRequestError(
                f"no LLM profile is named {request.active_profile!r}",
                ("body", "active_profile"),
            )
        profile_llm = profile.llm
    return await controls.run_to_completion(
        stores.settings.update, request, profile_llm=profile_llm
    )


@router.get("/secrets", response_model=SecretsListResponse, responses=error_responses(409))
async def list_secrets(stores: Stores) -> SecretsListResponse:
    """Every stored secret's name and description (never a value)."""
    return SecretsListResponse(secrets=stores.secrets.items())


@router.put("/secrets", response_model=SecretItemResponse, responses=error_responses(409, *STORAGE))
async def put_secret(
    request: SecretCreateRequest, stores: Stores, controls: Controls
) -> SecretItemResponse:
    """Create or replace a secret; its value is sealed at rest and never answered."""
    return await controls.run_to_completion(
        stores.secrets.put, request.name, request.value.get_secret_value(), request.description
    )


@router.get("/secrets/{name}", response_model=SecretItemResponse, responses=error_responses(404))
async def get_secret(name: SecretName, stores: Stores) -> SecretItemResponse:
    """Whether a secret is stored: its name and description (never its value)."""
    return stores.secrets.item(name)


@router.delete(
    "/secrets/{name}", response_model=SecretDeleted, responses=error_responses(404, *STORAGE)
)
async def delete_secret(name: SecretName, stores: Stores, controls: Controls) -> SecretDeleted:
    """Delete a stored secret (conversations that name it no longer get it)."""
    await controls.run_to_completion(stores.secrets.delete, name)
    return SecretDeleted()
