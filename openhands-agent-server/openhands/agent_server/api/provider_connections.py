"""REST routes of provider connections: /api/llm/provider-connections (an API key and base
URL that LLM profiles share by id). Loaded on first use (api/lazy.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, status
from openhands.agent_server.api.deps import control_pool, server_settings
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.errors import InvalidRequestError
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.sdk.wire.provider_connections import (
    ProviderConnectionCreateRequest,
    ProviderConnectionResponse,
    ProviderConnectionUpdateRequest,
)

router = APIRouter(prefix="/api/llm/provider-connections", tags=["llm"], route_class=CheckedRoute)

Stores = Annotated[ServerSettings, Depends(server_settings)]
Controls = Annotated[BlockingPool, Depends(control_pool)]
ConnectionId = Annotated[str, Path(min_length=1, max_length=128, description="Its id.")]


@router.get("", response_model=list[ProviderConnectionResponse], responses=error_responses(409))
async def list_provider_connections(
    stores: Stores, controls: Controls
) -> list[ProviderConnectionResponse]:
    """Every provider connection, without keys (`api_key_set` says whether one opens)."""
    connections = await controls.run(stores.provider_connections)
    return connections.answers()


@router.post(
    "",
    response_model=ProviderConnectionResponse,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(409, *STORAGE),
)
async def create_provider_connection(
    request: ProviderConnectionCreateRequest, stores: Stores, controls: Controls
) -> ProviderConnectionResponse:
    """Store a key (sealed, never answered) and base URL under a new id; profiles name it in
    `llm.provider_connection_id`. 409 past OH_MAX_PROVIDER_CONNECTIONS."""
    connections = await controls.run(stores.provider_connections)
    return await controls.run_to_completion(connections.create, request)


@router.patch(
    "/{connection_id}",
    response_model=ProviderConnectionResponse,
    responses=error_responses(404, 409, *STORAGE),
)
async def update_provider_connection(
    connection_id: ConnectionId,
    request: ProviderConnectionUpdateRequest,
    stores: Stores,
    controls: Controls,
) -> ProviderConnectionResponse:
    """Change a connection (a new key reaches every linked profile's next use); 404 unknown."""
    if not request.model_fields_set:
        raise InvalidRequestError("give at least one field to change", ("body",))
    connections = await controls.run(stores.provider_connections)
    return await controls.run_to_completion(connections.update, connection_id, request)


@router.delete(
    "/{connection_id}",
    response_model=ProviderConnectionResponse,
    responses=error_responses(404, 409, *STORAGE),
)
async def delete_provider_connection(
    connection_id: ConnectionId, stores: Stores, controls: Controls
) -> ProviderConnectionResponse:
    """Delete a connection; 409 while a profile or the stored settings name it, 404 unknown."""
    connections = await controls.run(stores.provider_connections)
    users = [
        f"LLM profile {name!r}"
        for name in stores.profiles.names()
        if (profile := stores.profiles.find(name)) is not None
        and profile.llm.provider_connection_id == connection_id
    ]
    settings_llm = stores.settings.llm()
    if settings_llm is not None and settings_llm.provider_connection_id == connection_id:
        users.append("the stored settings' LLM")
    return await controls.run_to_completion(connections.delete, connection_id, users)
