"""REST routes of the settings forms and the named MCP servers of the stored settings:
GET /api/settings/agent-schema and /conversation-schema, POST/PATCH/DELETE
/api/settings/mcp/{settings_key}. Loaded on first use (api/lazy.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, status
from openhands.agent_server.api.deps import control_pool, server_settings
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.services import mcp_settings
from openhands.agent_server.services.server_settings import ServerSettings
from openhands.agent_server.services.settings_schema import (
    agent_settings_schema,
    conversation_settings_schema,
)
from openhands.sdk.settings import SettingsResponse
from openhands.sdk.wire.mcp import MCP_SERVER_KEY_PATTERN, MCPServerSpec
from openhands.sdk.wire.settings_schema import SettingsSchema

router = APIRouter(prefix="/api/settings", tags=["settings"], route_class=CheckedRoute)

Stores = Annotated[ServerSettings, Depends(server_settings)]
Controls = Annotated[BlockingPool, Depends(control_pool)]
ServerKey = Annotated[
    str,
    Path(
        pattern=MCP_SERVER_KEY_PATTERN,
        description="The MCP server's name: 1-64 letters, digits, '_', '.', '-'.",
    ),
]


@router.get("/agent-schema", response_model=SettingsSchema, responses=error_responses())
async def get_agent_settings_schema(controls: Controls) -> SettingsSchema:
    """The form of the agent settings (`agent_settings` of /api/settings): sections of fields
    with their types, defaults, choices and which ones are secret."""
    return await controls.run(agent_settings_schema)


@router.get("/conversation-schema", response_model=SettingsSchema, responses=error_responses())
async def get_conversation_settings_schema(controls: Controls) -> SettingsSchema:
    """The form of what a conversation is created with besides its agent."""
    return await controls.run(conversation_settings_schema)


@router.post(
    "/mcp/{settings_key}",
    response_model=SettingsResponse,
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(409, *STORAGE),
)
async def create_mcp_server(
    settings_key: ServerKey, server: MCPServerSpec, stores: Stores, controls: Controls
) -> SettingsResponse:
    """Add a named MCP server to the stored settings (new agents get its tools); 409 if one
    has that name. Its `env` and `headers` values are sealed and never answered."""
    return await controls.run_to_completion(
        mcp_settings.add_server, stores.settings, settings_key, server
    )


@router.patch(
    "/mcp/{settings_key}",
    response_model=SettingsResponse,
    responses=error_responses(404, 409, *STORAGE),
)
async def patch_mcp_server(
    settings_key: ServerKey,
    stores: Stores,
    controls: Controls,
    patch: Annotated[
        dict[str, Any],
        Body(description="The fields to change (MCPServer's); a null removes one."),
    ],
) -> SettingsResponse:
    """Change some fields of a named MCP server (the others stay); 404 if unknown."""
    return await controls.run_to_completion(
        mcp_settings.patch_server, stores.settings, settings_key, patch
    )


@router.delete(
    "/mcp/{settings_key}",
    response_model=SettingsResponse,
    responses=error_responses(404, 409, *STORAGE),
)
async def delete_mcp_server(
    settings_key: ServerKey, stores: Stores, controls: Controls
) -> SettingsResponse:
    """Remove a named MCP server from the stored settings; 404 if unknown."""
    return await controls.run_to_completion(
        mcp_settings.delete_server, stores.settings, settings_key
    )
