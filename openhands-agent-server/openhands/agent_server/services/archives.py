"""Archives the file routes answer: a folder as a tar.gz or a git patch, a conversation's
trajectory as a zip.

A tar.gz is made from what `agent_files` shows of the folder (hidden paths left out, links
never followed, only regular files, credentials inside `.git` never included); a git patch is
made by git in the folder's sandbox (`git_script.py`), with a scratch index, so the user's
own index is never touched. Both are written to a private temporary file that the answer
streams and then removes. Default excludes drop the fat folders (`node_modules/`, `.venv/`,
caches, build outputs) unless the caller asks for everything.
"""

from __future__ import annotations

import fnmatch
import io
import json
import os
import stat
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from openhands.agent_server.errors import BadRequestError
from openhands.agent_server.services.scopes import Scope
from openhands.sdk.workspace.agent_files import AgentFiles, agent_files
from openhands.sdk.workspace.file_errors import AgentFileError

DEFAULT_EXCLUDES = (
    ".git/",
    "node_modules/",
    ".venv/",
    "venv/",
    "__pycache__/",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    "dist/",
    "build/",
    ".next/",
    "target/",
    "*.pyc",
)
"""What an archive leaves out unless `use_default_excludes` is false (the reference's)."""
GIT_SECRETS = frozenset(
    {"config", "config.worktree", "credentials", ".git-credentials", "FETCH_HEAD"}
)
"""Files inside a `.git` folder that may hold tokens: never archived (nor any reflog)."""
SKIP_SEARCH = frozenset({"node_modules", "venv", "site-packages", "vendor"})
MANIFEST = "archive_manifest.json"
SUFFIX = {"git-delta": ".patch", "tar.gz": ".tar.gz"}
MEDIA_TYPE = {"git-delta": "text/x-patch", "tar.gz": "application/gzip"}


@dataclass
class Archive:
    """A made archive: its file (remove it once sent), the name to send, extra headers."""

    path: Path
    filename: str
    headers: dict[str, str] = field(default_factory=dict)


def scratch_file(suffix: str) -> Path:
    """A new private (0600) temporary file for an archive."""
    fd, name = tempfile.mkstemp(prefix="oh-archive-", suffix=suffix)
    os.close(fd)
    return Path(name)


def repository_root(files: AgentFiles, target: Path, max_depth: int = 3) -> Path:
    """`target`, or the one git repository below it (at most `max_depth` levels, hidden and
    vendored folders skipped); `target` when there are none or several."""
    if files.exists(target / ".git"):
        return target
    found: list[Path] = []
    frontier = [(target, 0)]
    while frontier and len(found) < 2:
        folder, depth = frontier.pop()
        if depth >= max_depth:
            continue
        try:
            entries = files.list_dir(folder)
        except OSError:
            continue
        for entry in entries:
            if entry.kind != "dir" or entry.name.startswith(".") or entry.name in SKIP_SEARCH:
                continue
            child = folder / entry.name
            if files.exists(child / ".git"):
                found.append(child)
            else:
                frontier.append((child, depth + 1))
    return found[0] if len(found) == 1 else target


def excluded(relative: PurePosixPath, patterns: list[str], is_dir: bool) -> bool:
    """Whether `relative` matches an exclude (gitignore-like: `dir/` only folders, a bare
    name at any depth, a path with `/` from the root and everything below it)."""
    parts = relative.parts
    for raw in patterns:
        only_dirs = raw.endswith("/")
        pattern = raw.rstrip("/")
        if not pattern:
            continue
        if "/" in pattern:
            steps = pattern.split("/")
            if len(parts) >= len(steps) and all(
                fnmatch.fnmatchcase(part, step) for part, step in zip(parts, steps, strict=False)
            ):
                if only_dirs and not is_dir and len(parts) == len(steps):
                    continue
                return True
        else:
            candidates = parts if (is_dir or not only_dirs) else parts[:-1]
            if any(fnmatch.fnmatchcase(part, pattern) for part in candidates):
                return True
    return False


def git_secret(relative: PurePosixPath) -> bool:
    """Whether `relative` is a credential-bearing file inside a `.git` folder."""
    parts = relative.parts
    if ".git" not in parts:
        return False
    inside = parts[parts.index(".git") + 1 :]
    return bool(inside) and ("logs" in inside or inside[-1] in GIT_SECRETS)


def tar_gz(scope: Scope, root: Path, excludes: list[str]) -> Archive:
    """A gzip tarball of `root` as the agent sees it, with a manifest member."""
    files = agent_files(scope.workspace)
    output = scratch_file(SUFFIX["tar.gz"])
    count = total = 0
    manifest_name = f"{root.name}/{MANIFEST}"
    clashes = False
    try:
        with tarfile.open(output, "w:gz") as tar:
            for folder in files.walk(root):
                base = PurePosixPath(Path(folder.path).relative_to(root).as_posix())
                folder.dirs[:] = [
                    d
                    for d in folder.dirs
                    if not excluded(base / d, excludes, True) and not git_secret(base / d)
                ]
                tar.addfile(_folder_member(root, base))
                for entry in folder.files:
                    relative = base / entry.name
                    if entry.kind != "file" or excluded(relative, excludes, False):
                        continue
                    if git_secret(relative):
                        continue
                    size = _add_file(files, tar, Path(entry.path), f"{root.name}/{relative}")
                    if size is not None:
                        clashes = clashes or f"{root.name}/{relative}" == manifest_name
                        count, total = count + 1, total + size
            if not clashes:  # the user's own file of that name wins
                body = json.dumps(
                    {
                        "format": "tar.gz",
                        "source": root.name,
                        "file_count": count,
                        "total_bytes": total,
                        "excludes": excludes,
                    },
                    indent=2,
                    sort_keys=True,
                ).encode()
                info = tarfile.TarInfo(manifest_name)
                info.size = len(body)
                tar.addfile(info, io.BytesIO(body))
    except BaseException:
        output.unlink(missing_ok=True)
        raise
    return Archive(output, f"{root.name}{SUFFIX['tar.gz']}")


def _folder_member(root: Path, base: PurePosixPath) -> tarfile.TarInfo:
    info = tarfile.TarInfo(root.name if str(base) == "." else f"{root.name}/{base}")
    info.type = tarfile.DIRTYPE
    info.mode = 0o755
    return info


def _add_file(files: AgentFiles, tar: tarfile.TarFile, path: Path, name: str) -> int | None:
    """Add one regular file, sized from the opened file; None when it cannot be read now."""
    try:
        with files.open_file(path) as handle:
            found = os.fstat(handle.fileno())
            if not stat.S_ISREG(found.st_mode):
                return None
            info = tarfile.TarInfo(name)
            info.size = found.st_size
            info.mode = stat.S_IMODE(found.st_mode)
            info.mtime = int(found.st_mtime)
            tar.addfile(info, _Exactly(handle, found.st_size))
            return found.st_size
    except (AgentFileError, OSError):
        return None  # gone, replaced or hidden meanwhile: the workspace may be changing


class _Exactly:
    """A reader giving exactly `size` bytes (padding a file that shrank, cutting one that
    grew), so a file changing while it is archived cannot break the tar stream."""

    def __init__(self, handle: io.BufferedReader, size: int) -> None:
        self._handle = handle
        self._left = size

    def read(self, wanted: int = -1) -> bytes:
        if self._left <= 0:
            return b""
        wanted = self._left if wanted < 0 else min(wanted, self._left)
        data = self._handle.read(wanted)
        data += b"\0" * (wanted - len(data))
        self._left -= len(data)
        return data


def trajectory_zip(folder: Path, conversation_hex: str) -> Archive:
    """A zip of a conversation's folder: its state and events, not its sealed secrets nor
    files being written."""
    output = scratch_file(".zip")
    try:
        with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.write(folder, folder.name)
            for path in sorted(folder.rglob("*")):
                name = path.name
                if name.endswith((".tmp", ".sealed", ".lock")) or path.is_symlink():
                    continue
                try:
                    archive.write(path, str(path.relative_to(folder.parent)))
                except FileNotFoundError:
                    continue  # removed while the folder was read
    except BaseException:
        output.unlink(missing_ok=True)
        raise
    return Archive(output, f"{conversation_hex}.zip")


def check_base_ref(base_ref: str | None) -> None:
    """BadRequestError for a base ref that could be read as an option."""
    if base_ref is not None and (base_ref.startswith("-") or "\x00" in base_ref):
        raise BadRequestError("base_ref must not start with '-'")
