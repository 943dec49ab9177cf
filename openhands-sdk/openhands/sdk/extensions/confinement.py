"""Keeping an install to its source: no symbolic link or special file leads out of it.

A skill or plugin comes from someone else's folder or repository, and is read and copied by
this process, with its user's rights. A symbolic link committed in a repository would make
an install read (and copy into the install folder) any file of the machine: `SKILL.md ->
/etc/passwd`, `notes -> ~/.openhands/settings`, or a `repo_path` that is itself a link to `/`.
So, before anything of a source is read:

- `subfolder` walks a `repo_path` one name at a time and refuses a component that is a link;
- `check_confined` refuses a link whose target, resolved one name at a time from where the
  link is and without ever going above the source's folder, leaves it (absolute targets
  included), and refuses anything that is not a regular file, a folder or such a link (a
  FIFO would block the reader, a device would never end). Links that stay inside are kept:
  they still point inside the copy.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from openhands.sdk.extensions.errors import ExtensionInstallError

__all__ = ["MAX_LINK_HOPS", "check_confined", "link_escapes", "subfolder"]

MAX_LINK_HOPS = 40
"""Links followed while resolving one (as the kernel's limit): a loop is refused."""


def subfolder(root: Path, subpath: str, *, what: str) -> Path:
    """`root/subpath`, refusing `..`, an absolute path or any component that is a link.

    `what` names the source in messages. Raises `ExtensionInstallError` (a ValueError);
    a missing folder is the caller's to report.
    """
    relative = PurePosixPath(subpath.strip("/"))
    if relative.is_absolute() or ".." in relative.parts:
        raise ExtensionInstallError(
            f"repo_path {subpath!r} must be a folder inside {what} (no '..', not absolute)"
        )
    folder = root
    for name in relative.parts:
        if name in ("", "."):
            continue
        folder = folder / name
        try:
            info = folder.lstat()
        except FileNotFoundError:
            return root.joinpath(*relative.parts)
        if stat.S_ISLNK(info.st_mode):
            shown = folder.relative_to(root).as_posix()
            raise ExtensionInstallError(
                f"repo_path {subpath!r} of {what} passes through {shown!r}, a symbolic link "
                f"(to {os.readlink(folder)!r}); give the folder it stands for"
            )
    return folder


def link_escapes(root: Path, link: Path) -> bool:
    """Whether the link `link` (inside `root`) resolves to somewhere outside `root`.

    Resolved as the kernel would, one name at a time, but refusing to go above `root` at any
    step (`a -> .` then `a/../x` leaves it even though `x` looks inside) and refusing absolute
    targets and loops. A dangling link that stays inside does not escape.
    """
    stack: list[str] = list(link.parent.relative_to(root).parts)
    pending: list[str] = [link.name]
    hops = 0
    while pending:
        name = pending.pop(0)
        if name in ("", "."):
            continue
        if name == "..":
            if not stack:
                return True
            stack.pop()
            continue
        candidate = root.joinpath(*stack, name)
        try:
            is_link = stat.S_ISLNK(candidate.lstat().st_mode)
        except OSError:
            is_link = False  # missing: the rest is only names
        if not is_link:
            stack.append(name)
            continue
        hops += 1
        if hops > MAX_LINK_HOPS:
            return True
        target = os.readlink(candidate)
        if os.path.isabs(target):
            return True
        pending = [*PurePosixPath(target).parts, *pending]
    return False


def check_confined(root: Path, *, what: str) -> None:
    """Refuse a source folder holding a link out of it or a file that is not regular.

    Raises `ExtensionInstallError` naming the first such entry (relative to `root`).
    """
    root = Path(root)
    for folder, dirs, files in os.walk(root, followlinks=False):
        base = Path(folder)
        dirs[:] = [name for name in dirs if name != ".git"]  # never copied
        for name in [*dirs, *files]:
            if name == ".git":
                continue
            path = base / name
            info = path.lstat()
            shown = path.relative_to(root).as_posix()
            if stat.S_ISLNK(info.st_mode):
                if link_escapes(root, path):
                    raise ExtensionInstallError(
                        f"{what}: {shown!r} is a symbolic link to {os.readlink(path)!r}, "
                        "outside its folder; an install may only link inside itself (copy "
                        "the file in instead)"
                    )
            elif not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
                raise ExtensionInstallError(
                    f"{what}: {shown!r} is not a regular file or folder (a pipe, socket or "
                    "device); remove it"
                )
