"""`list_directory` (Gemini style): a folder's entries with their size and modification time."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openhands.sdk.tool import (
    Action,
    InvalidToolSpecError,
    Observation,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolExecutor,
)
from openhands.sdk.workspace.agent_files import AgentFiles
from openhands.tools.file_search import SKIPPED_DIRS
from openhands.tools.text_files import WorkspacePathError, WorkspaceText
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from openhands.sdk.conversation.base import BaseConversation

MAX_ENTRIES = 500
"""Entries listed at most; the answer says when there were more."""

DESCRIPTION = """Lists the files and folders of a directory of the workspace (folders first,
then files, by name), with sizes. `recursive` also lists two levels of subfolders
(version-control and dependency folders are skipped)."""


class FileEntry(BaseModel):
    """One entry of a listing."""

    name: str = Field(description="Its name (a path relative to the listed folder).")
    path: str = Field(description="Its absolute path.")
    is_directory: bool = Field(description="It is a folder.")
    size: int = Field(description="Bytes (0 for a folder).")
    modified_time: datetime = Field(description="When it last changed.")


class ListDirectoryAction(Action):
    """Arguments of `list_directory`."""

    dir_path: str = Field(default=".", description="The folder to list (default: the workspace).")
    recursive: bool = Field(default=False, description="Also list two levels of subfolders.")


class ListDirectoryObservation(Observation):
    """A folder's listing."""

    dir_path: str | None = Field(default=None, description="The folder listed.")
    entries: list[FileEntry] = Field(default_factory=list, description="What it holds.")
    total_count: int = Field(default=0, description="How many entries were found.")
    is_truncated: bool = Field(default=False, description="More than MAX_ENTRIES were found.")


class ListDirectoryExecutor(ToolExecutor[ListDirectoryAction, ListDirectoryObservation]):
    """Lists folders inside one workspace."""

    def __init__(self, workspace_root: str) -> None:
        self.root = Path(workspace_root).resolve()

    def __call__(
        self, action: ListDirectoryAction, conversation: BaseConversation | None = None
    ) -> ListDirectoryObservation:
        """List one folder; a missing or refused one is an error observation."""
        text_files = WorkspaceText(self.root)
        try:
            folder = text_files.resolve(action.dir_path)
        except WorkspacePathError as exc:
            return ListDirectoryObservation.from_text(f"Error: {exc}", is_error=True)
        if not text_files.files.is_dir(folder):
            return ListDirectoryObservation.from_text(
                f"Error: {action.dir_path} is not a directory", is_error=True
            )
        entries: list[FileEntry] = []
        depth = 3 if action.recursive else 1
        total = self._walk(text_files.files, folder, folder, 0, depth, entries)
        lines = [f"{e.name}/" if e.is_directory else f"{e.name} ({e.size} bytes)" for e in entries]
        text = "\n".join(lines) or "(empty directory)"
        if total > len(entries):
            text += f"\n[{total - len(entries)} more entries not shown]"
        return ListDirectoryObservation.from_text(
            text,
            dir_path=str(folder),
            entries=entries,
            total_count=total,
            is_truncated=total > len(entries),
        )

    def _walk(
        self,
        files: AgentFiles,
        base: Path,
        folder: Path,
        depth: int,
        max_depth: int,
        out: list[FileEntry],
    ) -> int:
        try:
            items = sorted(files.list_dir(folder), key=lambda e: (e.kind != "dir", e.name))
        except OSError:
            return 0
        count = 0
        for item in items:
            is_dir = item.kind == "dir"
            if is_dir and item.name in SKIPPED_DIRS:
                continue
            count += 1
            path = folder / item.name
            if len(out) < MAX_ENTRIES:
                out.append(
                    FileEntry(
                        name=str(path.relative_to(base)),
                        path=str(path),
                        is_directory=is_dir,
                        size=0 if is_dir else item.size,
                        modified_time=datetime.fromtimestamp(item.mtime, tz=UTC),
                    )
                )
            if is_dir and depth + 1 < max_depth:
                count += self._walk(files, base, path, depth + 1, max_depth, out)
        return count


class ListDirectoryTool(ToolDefinition[ListDirectoryAction, ListDirectoryObservation]):
    """Lists folders with sizes (Gemini-style file tools)."""

    description = DESCRIPTION
    action_type = ListDirectoryAction
    observation_type = ListDirectoryObservation
    annotations = ToolAnnotations(
        title="list_directory", readOnlyHint=True, destructiveHint=False, openWorldHint=False
    )

    @classmethod
    def create(cls, context: ToolContext, **params: Any) -> Sequence[ListDirectoryTool]:
        """Build the tool for one workspace; it takes no params."""
        if params:
            raise InvalidToolSpecError(f"list_directory takes no params, got {sorted(params)}")
        return [cls(executor=ListDirectoryExecutor(context.working_dir))]
