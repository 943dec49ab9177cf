"""REST routes of the saved workspaces a UI's picker lists: /api/workspaces and
/api/workspaces/parents (one list per server). Loaded on first use (api/lazy.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from openhands.agent_server.api.deps import control_pool, lazy_service
from openhands.agent_server.api.models import STORAGE, error_responses
from openhands.agent_server.api.routing import CheckedRoute
from openhands.agent_server.blocking import BlockingPool
from openhands.agent_server.errors import NotFoundError
from openhands.agent_server.services.workspace_list import WorkspaceList
from openhands.sdk.wire.workspaces import (
    AddWorkspaceParentsRequest,
    AddWorkspacesRequest,
    DeletedResponse,
    WorkspacesListResponse,
)

router = APIRouter(prefix="/api/workspaces", tags=["workspaces"], route_class=CheckedRoute)

Controls = Annotated[BlockingPool, Depends(control_pool)]
PathQuery = Annotated[str, Query(min_length=1, max_length=4096, description="Its folder.")]


async def workspace_list(request: Request) -> WorkspaceList:
    """The server's saved workspaces (read on first use)."""
    state = request.app.state

    def build() -> WorkspaceList:
        folder = state.server_settings.folder
        return WorkspaceList(folder, max_count=state.config.max_workspaces).load()

    return await lazy_service(request, "workspace_list", build)


Saved = Annotated[WorkspaceList, Depends(workspace_list)]


@router.get(
    "",
    response_model=WorkspacesListResponse,
    response_model_exclude_none=True,
    responses=error_responses(409),
)
async def list_workspaces(saved: Saved) -> WorkspacesListResponse:
    """The saved workspaces and workspace parents."""
    return saved.answer()


@router.post(
    "",
    response_model=WorkspacesListResponse,
    response_model_exclude_none=True,
    responses=error_responses(409, *STORAGE),
)
async def add_workspaces(
    request: AddWorkspacesRequest, saved: Saved, controls: Controls
) -> WorkspacesListResponse:
    """Add workspaces (one whose path is saved already is kept as it was); answers the list."""
    return await controls.run_to_completion(saved.add_workspaces, request.workspaces)


@router.delete("", response_model=DeletedResponse, responses=error_responses(404, 409, *STORAGE))
async def delete_workspace(path: PathQuery, saved: Saved, controls: Controls) -> DeletedResponse:
    """Forget the workspace saved under `path` (its folder is not touched); 404 if none is."""
    if not await controls.run_to_completion(saved.remove_workspace, path):
        raise NotFoundError(f"No workspace is saved under {path!r}.")
    return DeletedResponse()


@router.post(
    "/parents",
    response_model=WorkspacesListResponse,
    response_model_exclude_none=True,
    responses=error_responses(409, *STORAGE),
)
async def add_workspace_parents(
    request: AddWorkspaceParentsRequest, saved: Saved, controls: Controls
) -> WorkspacesListResponse:
    """Add workspace parents (deduplicated by path); answers the whole list."""
    return await controls.run_to_completion(saved.add_parents, request.parents)


@router.delete(
    "/parents", response_model=DeletedResponse, responses=error_responses(404, 409, *STORAGE)
)
async def delete_workspace_parent(
    path: PathQuery, saved: Saved, controls: Controls
) -> DeletedResponse:
    """Forget the workspace parent saved under `path`; 404 if none is."""
    if not await controls.run_to_completion(saved.remove_parent, path):
        raise NotFoundError(f"No workspace parent is saved under {path!r}.")
    return DeletedResponse()
