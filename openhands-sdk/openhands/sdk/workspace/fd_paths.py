"""Resolving a path one folder at a time, by descriptor, never following a link unchecked.

This is the walk under `agent_files`. Each component is opened with `O_PATH | O_NOFOLLOW`
relative to the descriptor of the folder before it, and what was opened is looked up in the
`FileView` by identity. A symlink is read through its own descriptor and its target resolved
the same way (at most 40 links, as the kernel allows); `..` goes back to the folder the walk
came from, so the walk only ever stands on folders it has checked. Whatever another process
renames meanwhile, the walk ends on the object it checked, never on one behind a swapped
name.

Why not `openat2(RESOLVE_BENEATH)` alone: it keeps a walk below one folder, but cannot say
whether a folder on the way is hidden (the server's folder inside a workspace, another
workspace) or writable; the per-folder check needs the folders one by one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections import deque
from dataclasses import dataclass, field

from openhands.sdk.workspace.file_errors import (
    AgentFileError,
    HiddenPathError,
    MissingPathError,
)
from openhands.sdk.workspace.file_view import FileView, MountKind

__all__ = ["MAX_LINKS", "Node", "Resolved", "hidden_error", "resolve"]

MAX_LINKS = 40
"""How many symlinks one path may pass through (the kernel's own limit)."""

_PATH_FLAGS = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class Node:
    """One opened entry: an `O_PATH` descriptor, the real path it was reached by, its kind."""

    fd: int
    path: str
    kind: MountKind
    identity: tuple[int, int]
    mode: int

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)

    @property
    def is_link(self) -> bool:
        return stat.S_ISLNK(self.mode)


@dataclass
class Resolved:
    """A resolved path: the folders walked (the last one is the parent), the final name in
    that parent, and the final entry when it exists. Close it (or use `with`)."""

    chain: list[Node]
    name: str | None
    node: Node | None
    _closed: bool = field(default=False, repr=False)

    @property
    def parent(self) -> Node:
        """The folder that holds the final entry."""
        return self.chain[-1]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for item in (*self.chain, *([self.node] if self.node is not None else [])):
            with contextlib.suppress(OSError):
                os.close(item.fd)

    def __enter__(self) -> Resolved:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def resolve(
    view: FileView,
    path: str,
    *,
    follow_last: bool = True,
    floor: str | None = None,
) -> Resolved:
    """Walk the absolute `path` from `/` (see the module docstring).

    `follow_last=False` leaves a final symlink as it is (to remove or replace it). `floor`:
    the walk must stay inside that folder (its own path resolved normally first): `..` above
    it, an absolute link and a link out of it raise `AgentFileError`, as `RESOLVE_BENEATH`
    would. Raises `MissingPathError` when a folder on the way is missing, `HiddenPathError`
    when the sandbox hides one. A missing final entry is `node=None`.
    """
    if floor is None:
        if not os.path.isabs(path):
            raise AgentFileError(f"{path} is not an absolute path", path)
        chain = [_open_root(view)]
        bottom = 0
    else:
        if os.path.isabs(path):
            raise AgentFileError(f"{path} must be relative to {floor}", path)
        base = resolve(view, floor)
        if base.node is None or not base.node.is_dir:
            base.close()
            raise MissingPathError(f"{floor} is not a folder", floor)
        chain = [*base.chain, base.node]
        bottom = len(chain) - 1
    try:
        return _walk(view, chain, deque(path.split("/")), follow_last, bottom, floor)
    except BaseException:
        _close_all(chain)
        raise


def hidden_error(shown: str, view: FileView) -> HiddenPathError:
    """The refusal for a path the sandbox hides, naming the workspace to work in."""
    return HiddenPathError(
        f"{shown} is hidden from the agent: it belongs to the server (its conversations, its "
        "key, its settings) or to another conversation's workspace, or the sandbox keeps it "
        f"private (/proc, /dev, /tmp). Work inside your workspace {view.workspace}.",
        shown,
    )


# -- the walk ------------------------------------------------------------------------------


def _walk(
    view: FileView,
    chain: list[Node],
    pending: deque[str],
    follow_last: bool,
    bottom: int,
    floor: str | None,
) -> Resolved:
    links = 0
    while pending:
        part = pending.popleft()
        if part in ("", "."):
            continue
        if part == "..":
            if len(chain) - 1 > bottom:
                os.close(chain.pop().fd)
            elif floor is not None:
                raise AgentFileError(f"the path leaves {floor} through '..'", floor)
            continue
        last = not any(item not in ("", ".") for item in pending)
        parent = chain[-1]
        if not parent.is_dir:
            raise MissingPathError(f"{parent.path} is not a folder", parent.path)
        try:
            fd = os.open(part, _PATH_FLAGS, dir_fd=parent.fd)
        except FileNotFoundError:
            if last:
                return Resolved(chain, part, None)
            raise MissingPathError(
                f"{os.path.join(parent.path, part)} does not exist", parent.path
            ) from None
        except OSError as exc:
            raise AgentFileError(
                f"cannot open {os.path.join(parent.path, part)}: {exc.strerror}", parent.path
            ) from exc
        found = os.fstat(fd)
        if stat.S_ISLNK(found.st_mode) and (follow_last or not last):
            try:
                target = os.readlink("", dir_fd=fd)  # the link opened, not the name again
            finally:
                os.close(fd)
            links += 1
            if links > MAX_LINKS:
                raise AgentFileError(
                    f"too many symbolic links under {parent.path} ({errno.ELOOP}: a loop?)",
                    parent.path,
                )
            if target.startswith("/"):
                if floor is not None:
                    raise AgentFileError(
                        f"{os.path.join(parent.path, part)} links to {target}, outside {floor}",
                        floor,
                    )
                _close_all(chain[1:])
                del chain[1:]
            pending.extendleft(reversed(target.split("/")))
            continue
        identity = (found.st_dev, found.st_ino)
        node = Node(
            fd=fd,
            path=os.path.join(parent.path, part),
            kind=view.kind_below(parent.kind, identity),
            identity=identity,
            mode=found.st_mode,
        )
        if not view.shows(node.kind, identity):
            os.close(fd)
            raise hidden_error(node.path, view)
        if last:
            return Resolved(chain, part, node)
        chain.append(node)
    # The path ended on a folder already walked ("/", "a/..", "a/."): it is the final entry.
    if len(chain) == 1:
        return Resolved(chain, None, _dup(chain[0]))
    node = chain.pop()
    return Resolved(chain, os.path.basename(node.path) or None, node)


def _open_root(view: FileView) -> Node:
    fd = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    found = os.fstat(fd)
    identity = (found.st_dev, found.st_ino)
    kind = view.kind_below(view.system, identity)
    return Node(fd=fd, path="/", kind=kind, identity=identity, mode=found.st_mode)


def _dup(node: Node) -> Node:
    return Node(
        fd=os.dup(node.fd),
        path=node.path,
        kind=node.kind,
        identity=node.identity,
        mode=node.mode,
    )


def _close_all(nodes: list[Node]) -> None:
    for node in nodes:
        with contextlib.suppress(OSError):
            os.close(node.fd)
