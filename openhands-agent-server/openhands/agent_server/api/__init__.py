"""The HTTP layer (top): REST routes, the event WebSocket, and the API's own models.

Each module holds the routes of one resource and turns HTTP into calls on `services/`;
request and answer bodies are the SDK's wire models (`openhands.sdk.wire`). No other layer
imports this one. `ROUTERS` is what the app mounts: a new group of routes is a module here
plus one entry below. `LAZY_ROUTERS` are mounted too, but their modules are imported on their
first request (lazy.py): a route family most requests never use belongs there.
"""

from fastapi import APIRouter
from openhands.agent_server.api.bash import router as bash
from openhands.agent_server.api.bash_sockets import router as bash_sockets
from openhands.agent_server.api.checkpoints import router as checkpoints
from openhands.agent_server.api.children import router as children
from openhands.agent_server.api.client_tools import router as client_tools
from openhands.agent_server.api.conversations import router as conversations
from openhands.agent_server.api.events import router as events
from openhands.agent_server.api.gateway import router as gateway
from openhands.agent_server.api.goals import router as goals
from openhands.agent_server.api.init import router as init
from openhands.agent_server.api.lazy import LazyRouter
from openhands.agent_server.api.profiles import router as profiles
from openhands.agent_server.api.server import router as server
from openhands.agent_server.api.settings import router as settings
from openhands.agent_server.api.sockets import router as sockets

ROUTERS: tuple[APIRouter, ...] = (
    conversations,
    children,
    events,
    goals,
    checkpoints,
    client_tools,
    bash,
    bash_sockets,
    sockets,
    server,
    settings,
    profiles,
    init,
    gateway,
)
"""Every router, in mounting order (sockets check the session key themselves)."""


def _lazy(name: str, *prefixes: str) -> LazyRouter:
    return LazyRouter(f"{__name__}.{name}", prefixes)


LAZY_ROUTERS: tuple[LazyRouter, ...] = (
    _lazy("conversation_controls", "/api/conversations"),
    _lazy("conversation_llms", "/api/conversations/"),
    _lazy("workspace_files", "/api/conversations/"),
    _lazy("llm_catalogue", "/api/llm/models", "/api/llm/providers"),
    _lazy("llm_check", "/api/llm/check"),
    _lazy("provider_connections", "/api/llm/provider-connections"),
    _lazy("workspaces", "/api/workspaces"),
    _lazy("profile_changes", "/api/profiles/"),
    _lazy("agent_profiles", "/api/agent-profiles"),
    _lazy("meta_profiles", "/api/meta-profiles"),
    _lazy(
        "settings_extras",
        "/api/settings/agent-schema",
        "/api/settings/conversation-schema",
        "/api/settings/mcp/",
    ),
    _lazy("mcp", "/api/mcp/"),
    _lazy("responses", "/v1/responses"),
    _lazy("git", "/api/git/", "/api/conversations/"),
    _lazy("files", "/api/file/", "/api/conversations/"),
    _lazy("skills", "/api/skills"),
    _lazy("plugins", "/api/plugins"),
    _lazy("agent_parts", "/api/hooks", "/api/tools/", "/api/sub-agents"),
)
"""Routers loaded on their first request, by module and the path prefixes of their routes."""
