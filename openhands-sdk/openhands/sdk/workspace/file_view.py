"""The agent's view of the file system as identities: what each folder is, by (device, inode).

A sandboxed process sees mounts: the system read-only, its workspace writable, hidden paths
emptied. Code in this process that acts for the agent must see the same, without trusting
names (a name can be swapped for a symlink between a check and an open). So the view keys
each mount root by the identity of what is there now; a walk that opens one folder at a time
(`fd_paths`) asks the view about each folder it actually opened.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from openhands.sdk.workspace.sandbox import SandboxMode, view_plan

__all__ = ["FileView", "MountKind", "file_view"]

MountKind = Literal["hidden", "ro", "rw"]
"""What the agent may do below a folder: nothing (not even see it), read, or read and write."""

Identity = tuple[int, int]


@dataclass(frozen=True)
class FileView:
    """The mounts of one workspace's sandbox, keyed by identity (see the module docstring)."""

    workspace: str
    """The workspace's real path."""
    system: MountKind
    """The kind of `/` (and of everything no mount covers)."""
    kinds: dict[Identity, MountKind]
    """Mount roots: the kind of the folder (or file) and of everything below it."""
    passages: frozenset[Identity] = field(default_factory=frozenset)
    """Hidden folders that lead to a visible mount (a workspace inside a hidden folder): the
    sandbox shows them, holding only the way to that mount."""
    writable_roots: tuple[str, ...] = ()
    """The folders the agent may write, for messages."""
    active: bool = False
    """Whether the agent's processes really run sandboxed (for messages)."""

    def kind_below(self, parent: MountKind, identity: Identity) -> MountKind:
        """The kind of an entry with `identity` inside a folder of kind `parent`."""
        return self.kinds.get(identity, parent)

    def shows(self, kind: MountKind, identity: Identity) -> bool:
        """Whether the sandbox shows an entry of that kind and identity at all."""
        return kind != "hidden" or identity in self.passages


def file_view(workspace: str | Path, mode: SandboxMode | None = None) -> FileView:
    """The view of the sandbox `workspace`'s processes get now (`sandbox.view_plan`)."""
    plan = view_plan(workspace, mode)
    kinds: dict[Identity, MountKind] = {}
    visible_roots: list[str] = []
    for path, kind in plan.mounts:
        try:
            found = os.stat(path)
        except OSError:
            continue  # not there: the sandbox would not mount it either
        kinds[(found.st_dev, found.st_ino)] = kind  # type: ignore[assignment]
        if kind != "hidden":
            visible_roots.append(path)
    passages: set[Identity] = set()
    for root in visible_roots:
        for ancestor in Path(root).parents:
            try:
                found = os.stat(ancestor)
            except OSError:
                continue
            identity = (found.st_dev, found.st_ino)
            if kinds.get(identity) == "hidden" or _under_hidden(ancestor, plan.mounts):
                passages.add(identity)
    writable = tuple(path for path, kind in plan.mounts if kind == "rw")
    return FileView(
        workspace=os.path.realpath(workspace),
        system=plan.system,
        kinds=kinds,
        passages=frozenset(passages),
        writable_roots=writable,
        active=plan.active,
    )


def _under_hidden(path: Path, mounts: tuple[tuple[str, str], ...]) -> bool:
    """Whether the nearest mount at or above `path` hides it."""
    text = str(path)
    nearest: tuple[int, str] | None = None
    for root, kind in mounts:
        if text == root or text.startswith(root.rstrip("/") + "/"):
            depth = root.count("/")
            if nearest is None or depth >= nearest[0]:
                nearest = (depth, kind)
    return nearest is not None and nearest[1] == "hidden"
