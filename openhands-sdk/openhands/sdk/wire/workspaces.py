"""Wire models of the saved workspaces a UI's workspace picker lists (/api/workspaces).

Shapes and JSON names are the reference server's (`parentPath`, `workspaceParents`): one list
per server, so every client connected to it sees the same workspaces.
"""

from __future__ import annotations

from openhands.sdk.wire.base import WIRE, WireAnswer, WireRequest
from pydantic import BaseModel, ConfigDict, Field

MAX_PATH_CHARS = 4096


class WorkspaceItem(WireRequest):
    """A saved workspace: a folder the picker offers."""

    model_config = ConfigDict(defer_build=True, extra="forbid", populate_by_name=True)

    id: str = Field(
        min_length=1, max_length=MAX_PATH_CHARS, description="Opaque (UIs use the path)."
    )
    name: str = Field(min_length=1, max_length=256, description="What the picker shows.")
    path: str = Field(min_length=1, max_length=MAX_PATH_CHARS, description="The folder.")
    parent_path: str | None = Field(
        default=None,
        alias="parentPath",
        max_length=MAX_PATH_CHARS,
        description="The workspace parent it was found under, if any.",
    )


class WorkspaceParentItem(WireRequest):
    """A saved workspace parent: a folder whose subfolders the picker offers."""

    id: str = Field(
        min_length=1, max_length=MAX_PATH_CHARS, description="Opaque (UIs use the path)."
    )
    name: str = Field(min_length=1, max_length=256, description="What the picker shows.")
    path: str = Field(min_length=1, max_length=MAX_PATH_CHARS, description="The folder.")


class WorkspacesListResponse(WireAnswer):
    """GET/POST /api/workspaces and POST /api/workspaces/parents: the whole saved list."""

    model_config = ConfigDict(defer_build=True, extra="forbid", populate_by_name=True)

    workspaces: list[WorkspaceItem] = Field(default_factory=list)
    workspace_parents: list[WorkspaceParentItem] = Field(
        default_factory=list, alias="workspaceParents"
    )


class AddWorkspacesRequest(WireRequest):
    """POST /api/workspaces: workspaces to add (one already saved under a path is kept)."""

    workspaces: list[WorkspaceItem] = Field(max_length=1000)


class AddWorkspaceParentsRequest(WireRequest):
    """POST /api/workspaces/parents: workspace parents to add (deduplicated by path)."""

    parents: list[WorkspaceParentItem] = Field(max_length=1000)


class DeletedResponse(BaseModel):
    """DELETE /api/workspaces and /api/workspaces/parents."""

    model_config = WIRE

    deleted: bool = True
