"""`AgentFiles`: every file operation made in this process on the agent's behalf.

The agent's own processes run in its sandbox, where the kernel enforces what they see. The
file editor, grep, glob, apply_patch, the Gemini tools, checkpoints' rewind, the server's
file routes and its reads of a workspace (project skills, AGENTS.md and kin) and of plugins
run here instead, in the server's process, with all of its rights. They go through this one
class, which gives exactly the sandbox's view of one workspace:

- hidden paths are invisible (the server's conversations, key and settings, other
  conversations' workspaces; `/proc` and `/dev`, which here are the server's; `/tmp` when the
  sandbox runs, since the agent's is private), also through a symlink or `..`;
- writes only land in the workspace and the writable folders (`OH_SANDBOX_WRITABLE`), also
  with the sandbox off unless `OH_CONFINE_WRITES=false`;
- no race: paths are walked one folder at a time by descriptor (`fd_paths`), files are
  opened relative to the folder checked and the opened file is checked again, never a name
  checked first and opened after;
- only regular files are read, without blocking (a FIFO is refused, never opened for
  reading), up to a size limit the caller gives.

With `floor=`, every path is relative to that folder and must stay inside it (no `..` above
it, no absolute or escaping symlink): how the server reads project skills and plugins.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from openhands.sdk.workspace.fd_paths import Node, Resolved, hidden_error, resolve
from openhands.sdk.workspace.file_errors import (
    AgentFileError,
    MissingPathError,
    NotARegularFileError,
    NotWritableError,
    PathChangedError,
)
from openhands.sdk.workspace.file_io import (
    READ_FLAGS,
    Entry,
    create_file,
    list_entries,
    open_regular,
    read_capped,
    replace_file,
)
from openhands.sdk.workspace.file_view import FileView, file_view
from openhands.sdk.workspace.sandbox import SandboxMode

__all__ = ["AgentFiles", "Entry", "Folder", "agent_files"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def agent_files(
    workspace: str | Path, *, floor: str | Path | None = None, mode: SandboxMode | None = None
) -> AgentFiles:
    """The file operations the agent of `workspace` may have made for it, as its sandbox
    shows them now (see the module docstring). The view is taken once: make a new one per
    operation or search, not per process."""
    return AgentFiles(workspace, file_view(workspace, mode), floor=floor)


class AgentFiles:
    """Reads, listings, walks, writes and removals in one workspace's view (module docs)."""

    def __init__(
        self, workspace: str | Path, view: FileView, *, floor: str | Path | None = None
    ) -> None:
        self.workspace = Path(os.path.abspath(os.fspath(workspace)))
        self.view = view
        self.floor = None if floor is None else os.path.abspath(os.fspath(floor))

    # -- naming -------------------------------------------------------------------------

    def absolute(self, path: str | Path) -> str:
        """`path` as the agent means it: `~` expanded, relative to the workspace (or the
        floor), `.` and `..` kept for the walk to resolve."""
        text = os.fspath(path)
        if not text.strip():
            raise AgentFileError("the path is empty: give a file or folder path", text)
        if "\0" in text:
            raise AgentFileError("the path contains a NUL character", text)
        text = os.path.expanduser(text)
        base = self.floor or str(self.workspace)
        return text if os.path.isabs(text) else os.path.join(base, text)

    def locate(self, path: str | Path, *, follow_last: bool = True) -> Resolved:
        """`path` walked with every check (`fd_paths.resolve`), for code that builds on this
        class (`file_batch`); close the result."""
        full = self.absolute(path)
        if self.floor is None:
            return resolve(self.view, full, follow_last=follow_last)
        # Not normalised: a `..` is walked, and refused where it would leave the floor.
        if full == self.floor:
            relative = "."
        elif full.startswith(self.floor.rstrip("/") + "/"):
            relative = full[len(self.floor.rstrip("/")) + 1 :]
        else:
            raise AgentFileError(f"{path} is outside {self.floor}", os.fspath(path))
        return resolve(self.view, relative, follow_last=follow_last, floor=self.floor)

    # -- reading ------------------------------------------------------------------------

    def stat(self, path: str | Path) -> os.stat_result:
        """The entry's status, links followed; `MissingPathError` when there is none."""
        with self.locate(path) as found:
            node = _existing(found, path)
            return os.stat(node.fd)

    def exists(self, path: str | Path) -> bool:
        """Whether something visible is there (a hidden path raises `HiddenPathError`)."""
        try:
            with self.locate(path) as found:
                return found.node is not None
        except MissingPathError:
            return False

    def is_dir(self, path: str | Path) -> bool:
        """Whether a visible folder is there."""
        try:
            with self.locate(path) as found:
                return found.node is not None and found.node.is_dir
        except MissingPathError:
            return False

    def read_bytes(self, path: str | Path, *, limit: int) -> bytes:
        """The content of a regular file, at most `limit` bytes (`FileTooLargeError` past
        it)."""
        with self.open_file(path) as handle:
            return read_capped(handle.fileno(), limit, os.fspath(path))

    def read_text(self, path: str | Path, *, limit: int, errors: str = "strict") -> str:
        """`read_bytes` decoded as UTF-8 (line ends kept); a `UnicodeDecodeError` for text
        that is not UTF-8 unless `errors` says otherwise."""
        return self.read_bytes(path, limit=limit).decode("utf-8", errors)

    @contextlib.contextmanager
    def open_file(self, path: str | Path) -> Iterator[io.BufferedReader]:
        """A regular file opened for reading (binary), checked after it was opened."""
        with self.locate(path) as found:
            node = _existing(found, path)
            fd = open_regular(found.parent, found.name or "", node, os.fspath(path))
        with io.open(fd, "rb") as handle:  # noqa: UP020 (io.open types it BufferedReader)
            assert isinstance(handle, io.BufferedReader)
            yield handle

    def list_dir(self, path: str | Path) -> list[Entry]:
        """The visible entries of a folder, sorted by name (hidden ones left out, as the
        sandbox shows only the way to a visible mount inside a hidden folder)."""
        shown = os.fspath(path)
        with self.locate(path) as found:
            node = _existing(found, path)
            if not node.is_dir:
                raise NotARegularFileError(f"{shown} is not a folder", shown)
            fd = os.open(".", _DIR_FLAGS, dir_fd=node.fd)
        try:
            return list_entries(self.view, fd, node.kind, self.absolute(path))
        finally:
            os.close(fd)

    def walk(
        self, path: str | Path, *, skip: Callable[[str], bool] | None = None
    ) -> Iterator[Folder]:
        """Every visible folder under `path` (itself first), top-down. Remove names from a
        folder's `dirs` to prune; `skip(name)` prunes folders by name. Symlinked folders are
        listed as links and not entered."""
        shown = self.absolute(path)
        with self.locate(path) as found:
            node = _existing(found, path)
            if not node.is_dir:
                raise NotARegularFileError(f"{os.fspath(path)} is not a folder", shown)
            fd = os.open(".", _DIR_FLAGS, dir_fd=node.fd)
        yield from self._walk(fd, node.kind, shown, skip)

    def _walk(
        self, fd: int, kind: str, shown: str, skip: Callable[[str], bool] | None
    ) -> Iterator[Folder]:
        try:
            entries = list_entries(self.view, fd, kind, shown)
            folder = Folder(self, fd, kind, shown, entries)
            if skip is not None:
                folder.dirs[:] = [name for name in folder.dirs if not skip(name)]
            yield folder
            for name in list(folder.dirs):
                try:
                    child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError:
                    continue  # gone, or replaced by a link meanwhile: not entered
                found = os.fstat(child)
                identity = (found.st_dev, found.st_ino)
                child_kind = self.view.kind_below(kind, identity)  # type: ignore[arg-type]
                if not self.view.shows(child_kind, identity):
                    os.close(child)
                    continue
                yield from self._walk(child, child_kind, os.path.join(shown, name), skip)
        finally:
            os.close(fd)

    # -- writing ------------------------------------------------------------------------

    def write_bytes(
        self,
        path: str | Path,
        data: bytes,
        *,
        exclusive: bool = False,
        parents: bool = False,
        mode: int | None = None,
        follow_last: bool = True,
    ) -> str:
        """Replace (or create) a file with `data`: readers see the old or the new file, and
        an existing file keeps its mode unless `mode` is given. `exclusive`: only create
        (`FileExistsError` when something is there). `parents`: create missing folders
        first. A final symlink is followed to the file it names (which must be writable
        too), or with `follow_last=False` replaced by the file. Returns the real path."""
        if parents:
            self.make_dirs(os.path.dirname(self.absolute(path)))
        shown = os.fspath(path)
        with self.locate(path, follow_last=follow_last) as found:
            parent = found.parent
            name = found.name
            node = found.node
            if name is None or (node is not None and node.is_dir):
                raise NotARegularFileError(f"{shown} is a folder", shown)
            self.require_writable(parent, shown)
            if node is not None:
                if exclusive:
                    raise FileExistsError(f"{shown} already exists")
                if node.kind != "rw":
                    raise self.not_writable(shown)
                if not (stat.S_ISREG(node.mode) or (node.is_link and not follow_last)):
                    raise NotARegularFileError(f"{shown} is not a regular file", shown)
            keep = None if node is None or node.is_link else stat.S_IMODE(node.mode)
            target = os.path.join(parent.path, name)
            try:
                if exclusive:
                    create_file(parent.fd, name, data, mode)
                else:
                    replace_file(parent.fd, name, data, mode if mode is not None else keep)
            except FileExistsError:
                raise
            except OSError as exc:
                raise AgentFileError(f"cannot write {shown}: {exc.strerror}", shown) from exc
            return target

    def make_symlink(self, path: str | Path, target: str) -> None:
        """Make `path` a symlink to `target` (as given: it is not followed here), replacing
        a file or link there, never a folder."""
        shown = os.fspath(path)
        self.make_dirs(os.path.dirname(self.absolute(path)))
        with self.locate(path, follow_last=False) as found:
            if found.name is None or (found.node is not None and found.node.is_dir):
                raise NotARegularFileError(f"{shown} is a folder", shown)
            self.require_writable(found.parent, shown)
            if found.node is not None and found.node.kind != "rw":
                raise self.not_writable(shown)
            temp = f".{found.name[:100]}.{secrets.token_hex(4)}.tmp"
            try:
                os.symlink(target, temp, dir_fd=found.parent.fd)
                os.replace(temp, found.name, src_dir_fd=found.parent.fd, dst_dir_fd=found.parent.fd)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=found.parent.fd)
                raise AgentFileError(f"cannot make {shown}: {exc.strerror}", shown) from exc

    def write_text(
        self, path: str | Path, text: str, *, exclusive: bool = False, parents: bool = False
    ) -> str:
        """`write_bytes` of `text` encoded as UTF-8 (line ends as given)."""
        return self.write_bytes(path, text.encode("utf-8"), exclusive=exclusive, parents=parents)

    def make_dirs(self, path: str | Path) -> None:
        """Create the folder and its missing parents (0777 less the umask), each in a
        writable folder; nothing when it exists."""
        shown = os.fspath(path)
        for _ in range(64):  # a racing writer can only make us go round a few times
            try:
                with self.locate(path) as found:
                    if found.node is not None:
                        if not found.node.is_dir:
                            raise FileExistsError(f"{shown} exists and is not a folder")
                        return
                    self.require_writable(found.parent, shown)
                    assert found.name is not None
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(found.name, dir_fd=found.parent.fd)
                    continue
            except MissingPathError:
                parent = os.path.dirname(self.absolute(path).rstrip("/"))
                if parent == self.absolute(path).rstrip("/"):
                    raise
                self.make_dirs(parent)
        raise PathChangedError(f"{shown} kept changing while its folders were made", shown)

    def remove_file(self, path: str | Path) -> None:
        """Remove a file or a symlink (never what it points to, never a folder)."""
        shown = os.fspath(path)
        with self.locate(path, follow_last=False) as found:
            node = _existing(found, path)
            if node.is_dir:
                raise NotARegularFileError(f"{shown} is a folder", shown)
            self.require_writable(found.parent, shown)
            if node.kind != "rw":
                raise self.not_writable(shown)
            try:
                os.unlink(found.name or "", dir_fd=found.parent.fd)
            except FileNotFoundError:
                return
            except OSError as exc:
                raise AgentFileError(f"cannot remove {shown}: {exc.strerror}", shown) from exc

    def remove_dir(self, path: str | Path) -> None:
        """Remove an empty folder (`OSError` ENOTEMPTY when it is not)."""
        shown = os.fspath(path)
        with self.locate(path, follow_last=False) as found:
            node = _existing(found, path)
            if not node.is_dir:
                raise NotARegularFileError(f"{shown} is not a folder", shown)
            self.require_writable(found.parent, shown)
            if node.kind != "rw" or found.name is None:
                raise self.not_writable(shown)
            os.rmdir(found.name, dir_fd=found.parent.fd)

    def require_writable(self, parent: Node, shown: str) -> None:
        """Raise unless the agent may create, replace or remove entries in `parent`."""
        if parent.kind == "hidden":
            raise hidden_error(shown, self.view)
        if parent.kind != "rw":
            raise self.not_writable(shown)

    def not_writable(self, shown: str) -> NotWritableError:
        """The refusal for a write outside the writable folders."""
        roots = ", ".join(self.view.writable_roots) or str(self.workspace)
        return NotWritableError(
            f"{shown} is outside the folders the agent may write ({roots}): write inside "
            "the workspace.",
            shown,
        )


class Folder:
    """One folder of `AgentFiles.walk`: its path, its visible sub-folders (prunable) and
    files; files are read relative to the folder's descriptor."""

    def __init__(
        self, files: AgentFiles, fd: int, kind: str, path: str, entries: list[Entry]
    ) -> None:
        self._files = files
        self._fd = fd
        self._kind = kind
        self.path = path
        self.dirs: list[str] = [entry.name for entry in entries if entry.kind == "dir"]
        self.files: list[Entry] = [e for e in entries if e.kind in ("file", "link")]
        """Regular files and symlinks (a link is followed, with every check, when read)."""

    def read_bytes(self, name: str, *, limit: int) -> bytes:
        """The content of the regular file `name` in this folder (a link is followed)."""
        shown = os.path.join(self.path, name)
        try:
            fd = os.open(name, READ_FLAGS, dir_fd=self._fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a symlink: resolve it with every check
                return self._files.read_bytes(shown, limit=limit)
            raise MissingPathError(f"{shown} cannot be read: {exc.strerror}", shown) from exc
        try:
            found = os.fstat(fd)
            kind = self._files.view.kind_below(self._kind, (found.st_dev, found.st_ino))  # type: ignore[arg-type]
            if not self._files.view.shows(kind, (found.st_dev, found.st_ino)):
                raise hidden_error(shown, self._files.view)
            if not stat.S_ISREG(found.st_mode):
                raise NotARegularFileError(f"{shown} is not a regular file", shown)
            return read_capped(fd, limit, shown)
        finally:
            os.close(fd)


def _existing(found: Resolved, path: str | Path) -> Node:
    if found.node is None:
        shown = os.fspath(path)
        raise MissingPathError(f"{shown} does not exist", shown)
    return found.node
