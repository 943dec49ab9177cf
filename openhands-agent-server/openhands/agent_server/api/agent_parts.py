"""REST routes of what an agent may be built from: a project's hooks (`POST /api/hooks`),
the tools (`GET /api/tools/`, `GET /api/tools/catalog`) and the sub-agents
(`POST /api/sub-agents`), in the reference's shapes.

A project folder a request names must be absolute and visible to the agent's sandbox (else
403); what the sandbox hides inside it is left out. The tool and sub-agent modules load on
the first request, not at the server's start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from openhands.agent_server.api.models import error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.api.runtime import (
    FORBIDDEN,
    blocking,
    project_scope,
)
from openhands.sdk.wire.agent_parts import (
    HooksRequest,
    HooksResponse,
    SubAgentInfo,
    SubAgentsRequest,
    SubAgentsResponse,
    ToolCatalogResponse,
)

hooks_router = APIRouter(prefix="/api/hooks", tags=["hooks"], route_class=CheckedRoute)
tools_router = APIRouter(prefix="/api/tools", tags=["tools"], route_class=CheckedRoute)
sub_agents_router = APIRouter(
    prefix="/api/sub-agents", tags=["sub-agents"], route_class=CheckedRoute
)

PROJECT_ERRORS = {**error_responses(), **FORBIDDEN}


def _hidden(request: Request, project_dir: str | None) -> tuple[Path | None, Any]:
    """The project folder (checked) and the sandbox's test of what it hides."""
    from openhands.agent_server.services.scopes import hidden_test

    scope = project_scope(request, project_dir)
    if scope is None or project_dir is None:
        return None, lambda _path: False
    return Path(project_dir), hidden_test(scope.workspace)


@hooks_router.post("", response_model=HooksResponse, responses=PROJECT_ERRORS)
async def get_hooks(body: HooksRequest, request: Request) -> HooksResponse:
    """The project's `.openhands/hooks.json`, or null when it has none (or an empty one)."""
    from openhands.agent_server.services.agent_parts import project_hooks

    folder, hidden = _hidden(request, body.project_dir)
    if folder is None:
        return HooksResponse(hook_config=None)
    return HooksResponse(hook_config=await blocking(request, project_hooks, folder, hidden))


@tools_router.get("/", response_model=list[str], responses=error_responses())
async def list_tools(request: Request) -> list[str]:
    """Every name a tool resolves by (tool names and class names)."""
    from openhands.agent_server.services.agent_parts import tool_names

    return await blocking(request, tool_names)


@tools_router.get("/catalog", response_model=ToolCatalogResponse, responses=error_responses())
async def tool_catalog(request: Request) -> ToolCatalogResponse:
    """The tools a client may offer when it configures an agent (`user_selectable` ones)."""
    from openhands.agent_server.services.agent_parts import tool_catalog as catalog

    return ToolCatalogResponse(tools=await blocking(request, catalog))


@sub_agents_router.post("", response_model=SubAgentsResponse, responses=PROJECT_ERRORS)
async def get_sub_agents(body: SubAgentsRequest, request: Request) -> SubAgentsResponse:
    """Project, user and built-in sub-agents; the first of a name wins, in that order."""
    from openhands.agent_server.services.agent_parts import sub_agents

    folder, hidden = _hidden(request, body.project_dir if body.load_project else None)

    def read() -> list[SubAgentInfo]:
        found = sub_agents(
            project_dir=folder,
            load_user=body.load_user,
            load_builtin=body.load_builtin,
            hidden=hidden,
        )
        return [SubAgentInfo.from_definition(definition) for definition in found]

    return SubAgentsResponse(agents=await blocking(request, read))


router = APIRouter()
"""The hooks, tools and sub-agents routes."""
router.include_router(hooks_router)
router.include_router(tools_router)
router.include_router(sub_agents_router)
