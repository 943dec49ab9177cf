"""Putting files of a checkpoint back into the workspace, and removing the ones made since.

Both run in the server's process on a workspace the agent controls, so both go through
`AgentFiles`: a folder the agent swapped for a symlink cannot send a write or a deletion
outside the folders it may write, and nothing is checked by name and opened after. The
contents come from the shadow repository (`git cat-file`), never through the work tree.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from openhands.sdk.workspace.agent_files import AgentFiles
from openhands.sdk.workspace.checkpoints.errors import CheckpointError, WorkspaceChangingError
from openhands.sdk.workspace.checkpoints.git import Git, nul_split
from openhands.sdk.workspace.file_errors import AgentFileError, MissingPathError

__all__ = ["remove_paths", "restore_paths"]

_CHUNK = 500  # paths per `git ls-tree` call (an argument list has a limit)
_FILE_MODES = {"100644": 0o644, "100755": 0o755}


def restore_paths(git: Git, files: AgentFiles, commit: str, paths: Sequence[str]) -> None:
    """Write each of `paths` (relative to the work tree) as commit `commit` holds it."""
    entries: list[tuple[str, str, str]] = []  # (mode, blob id, path)
    for start in range(0, len(paths), _CHUNK):
        listing = git.run("ls-tree", "-z", "-r", commit, "--", *paths[start : start + _CHUNK])
        for record in nul_split(listing):
            meta, _, path = record.partition("\t")
            mode, kind, blob = meta.split()
            if kind == "blob":
                entries.append((mode, blob, path))
    contents = _blobs(git, [blob for _, blob, _ in entries])
    for mode, blob, path in entries:
        target = git.work_tree / path
        try:
            if mode == "120000":
                files.make_symlink(target, os.fsdecode(contents[blob]))
            else:
                files.write_bytes(
                    target,
                    contents[blob],
                    parents=True,
                    mode=_FILE_MODES.get(mode, 0o644),
                    follow_last=False,
                )
        except (AgentFileError, OSError) as exc:
            raise _changing("restore", path, exc) from exc


def remove_paths(files: AgentFiles, work_tree: Path, paths: Sequence[str]) -> None:
    """Delete each file of `paths`, then the folders that leaves empty (not the work tree)."""
    for path in paths:
        target = work_tree / path
        try:
            files.remove_file(target)
        except MissingPathError:
            pass
        except AgentFileError as exc:
            if files.is_dir(target):
                continue  # it became a folder meanwhile: not ours to remove
            raise _changing("delete", path, exc) from exc
        folder = target.parent
        while folder != work_tree and work_tree in folder.parents:
            try:
                files.remove_dir(folder)
            except OSError:
                break  # not empty (or not ours): stop here
            folder = folder.parent


def _changing(action: str, path: str, exc: OSError) -> WorkspaceChangingError:
    # The `before` snapshot listed this path a moment ago: refused now, it was changed
    # meanwhile (a folder swapped for a link, a file for a folder).
    return WorkspaceChangingError(
        f"Cannot {action} {path} while rewinding: {exc}. The workspace changed during the "
        "rewind (a process is still writing in it): stop it, then rewind again; the "
        "snapshot taken before this rewind has the files as they were."
    )


def _blobs(git: Git, ids: list[str]) -> dict[str, bytes]:
    """The contents of the blobs `ids`, read in one `git cat-file --batch`."""
    if not ids:
        return {}
    unique = list(dict.fromkeys(ids))
    out = git.run("cat-file", "--batch", stdin=("\n".join(unique) + "\n").encode())
    found: dict[str, bytes] = {}
    position = 0
    for blob in unique:
        header_end = out.index(b"\n", position)
        oid, _kind, size = out[position:header_end].decode().split()
        start = header_end + 1
        found[oid] = out[start : start + int(size)]
        position = start + int(size) + 1  # the content ends with a newline of its own
        if oid != blob:
            raise CheckpointError(f"git answered {oid} for {blob}: the checkpoint store is damaged")
    return found
