"""The named MCP servers of the stored agent settings, one at a time (/api/settings/mcp/{key}):
add one (409 if the name is taken), change some of its fields, remove it (404 if unknown).

Each change is a deep merge into `agent_settings.mcp_config` through `SettingsStore.update`,
so the rules of /api/settings hold: written before it is answered, secrets (`env`, `headers`)
sealed, answers without them. The check that the name is free (or known) happens under the
store's lock, so two requests cannot both add the same name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from openhands.agent_server.errors import ConflictError, InvalidRequestError, NotFoundError
from openhands.agent_server.services.sealed_credentials import EXPOSE
from openhands.agent_server.services.settings_store import Settings, SettingsStore, deep_merge
from openhands.sdk.mcp.config import MCPServer
from openhands.sdk.settings import SettingsResponse, SettingsUpdateRequest
from pydantic import ValidationError


def add_server(store: SettingsStore, key: str, server: MCPServer) -> SettingsResponse:
    """Store `server` under `key` (blocking); 409 if a server has that name."""

    def absent(settings: Settings) -> None:
        if key in settings.agent_settings.mcp_config:
            raise ConflictError(
                f"MCP server {key!r} already exists; change it with PATCH or delete it first."
            )

    data = server.model_dump(mode="json", context=EXPOSE, exclude_none=True)
    return _update(store, {key: data}, absent)


def patch_server(store: SettingsStore, key: str, patch: dict[str, Any]) -> SettingsResponse:
    """Change the fields `patch` names of server `key`, merged as /api/settings merges (a null
    removes a field; `env` and `headers` merge name by name); 404 if unknown, 422 naming the
    field if the result is not a valid server."""
    current = store.mcp_config().get(key)
    if current is None:
        raise _unknown(key)
    exposed = current.model_dump(mode="json", context=EXPOSE, exclude_none=True)
    try:
        MCPServer.model_validate(deep_merge(exposed, patch, top=False))
    except ValidationError as exc:
        error = exc.errors()[0]
        raise InvalidRequestError(str(error["msg"]), ("body", *error["loc"])) from None

    def present(settings: Settings) -> None:
        if key not in settings.agent_settings.mcp_config:
            raise _unknown(key)

    return _update(store, {key: patch}, present)


def delete_server(store: SettingsStore, key: str) -> SettingsResponse:
    """Remove server `key` (blocking); 404 if unknown."""

    def present(settings: Settings) -> None:
        if key not in settings.agent_settings.mcp_config:
            raise _unknown(key)

    return _update(store, {key: None}, present)


def _update(
    store: SettingsStore, servers: dict[str, Any], check: Callable[[Settings], None]
) -> SettingsResponse:
    diff: dict[str, Any] = {"mcp_config": servers}
    return store.update(SettingsUpdateRequest(agent_settings_diff=diff), check=check)


def _unknown(key: str) -> NotFoundError:
    return NotFoundError(f"MCP server {key!r} was not found in the stored settings.")
