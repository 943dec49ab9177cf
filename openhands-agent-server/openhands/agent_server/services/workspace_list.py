"""`WorkspaceList`: the workspaces and workspace parents a UI's picker offers, one list per
server (`workspaces.json` in the settings folder).

Adding is idempotent (deduplicated by path), at most OH_MAX_WORKSPACES of each kind. Every
change is written (atomically, 0600) before it is answered; a refused write leaves the list as
it was. A damaged file is never overwritten: reads and changes answer 409 until it is fixed
or removed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from openhands.agent_server.errors import ConflictError
from openhands.agent_server.services.settings_folder import (
    SETTINGS_UNREADABLE,
    ensure_folder,
    read_document,
    write_document,
)
from openhands.sdk.wire.workspaces import (
    WorkspaceItem,
    WorkspaceParentItem,
    WorkspacesListResponse,
)
from pydantic import BaseModel, ConfigDict, Field

WORKSPACES_FILE = "workspaces.json"


class WorkspacesFile(BaseModel):
    """`workspaces.json`."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    workspaces: list[WorkspaceItem] = Field(default_factory=list)
    workspace_parents: list[WorkspaceParentItem] = Field(default_factory=list)


class WorkspaceList:
    """The saved workspaces of one server: read once, changed by atomic writes."""

    def __init__(self, folder: Path, *, max_count: int) -> None:
        self._folder = folder
        self._path = folder / WORKSPACES_FILE
        self._max_count = max_count
        self._lock = threading.Lock()
        self._saved = WorkspacesFile()
        self._problem: str | None = None

    def load(self) -> WorkspaceList:
        """Read the file (blocking); a damaged one is noted, not overwritten."""
        stored = read_document(self._path, WorkspacesFile)
        if isinstance(stored, str):
            self._problem = stored
        elif stored is not None:
            self._saved = stored
        return self

    def answer(self) -> WorkspacesListResponse:
        """The whole list; 409 if the file is damaged."""
        self._check()
        saved = self._saved
        return WorkspacesListResponse.model_validate(
            {"workspaces": saved.workspaces, "workspace_parents": saved.workspace_parents}
        )

    def add_workspaces(self, items: list[WorkspaceItem]) -> WorkspacesListResponse:
        """Add those whose path is not saved yet (blocking)."""
        return self._change(lambda s: _with(s, "workspaces", items, self._max_count))

    def add_parents(self, items: list[WorkspaceParentItem]) -> WorkspacesListResponse:
        """Add the workspace parents whose path is not saved yet (blocking)."""
        return self._change(lambda s: _with(s, "workspace_parents", items, self._max_count))

    def remove_workspace(self, path: str) -> bool:
        """Remove the workspace saved under `path`; False if there is none (blocking)."""
        return self._remove("workspaces", path)

    def remove_parent(self, path: str) -> bool:
        """Remove the workspace parent saved under `path`; False if there is none."""
        return self._remove("workspace_parents", path)

    def _remove(self, kind: Literal["workspaces", "workspace_parents"], path: str) -> bool:
        removed = False

        def without(saved: WorkspacesFile) -> WorkspacesFile:
            nonlocal removed
            items = getattr(saved, kind)
            kept = [item for item in items if item.path != path]
            removed = len(kept) != len(items)
            return saved.model_copy(update={kind: kept}) if removed else saved

        self._change(without)
        return removed

    def _change(self, change: Callable[[WorkspacesFile], WorkspacesFile]) -> WorkspacesListResponse:
        with self._lock:
            self._check()
            updated = change(self._saved)
            if updated is not self._saved:
                ensure_folder(self._folder)
                write_document(self._path, updated)
                self._saved = updated
        return self.answer()

    def _check(self) -> None:
        if self._problem is not None:
            raise ConflictError(
                f"The saved workspaces cannot be read: {self._problem}.", code=SETTINGS_UNREADABLE
            )


def _with(
    saved: WorkspacesFile,
    kind: Literal["workspaces", "workspace_parents"],
    items: list[WorkspaceItem] | list[WorkspaceParentItem],
    max_count: int,
) -> WorkspacesFile:
    current = list(getattr(saved, kind))
    seen = {item.path for item in current}
    added = []
    for item in items:
        if item.path not in seen:
            seen.add(item.path)
            added.append(item)
    if not added:
        return saved
    if len(current) + len(added) > max_count:
        raise ConflictError(
            f"The server saves at most {max_count} {kind.replace('_', ' ')} "
            f"(OH_MAX_WORKSPACES); it has {len(current)}. Remove some first, or raise it."
        )
    return saved.model_copy(update={kind: [*current, *added]})
