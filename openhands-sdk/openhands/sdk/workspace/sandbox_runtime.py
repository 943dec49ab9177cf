"""What of this process's own installation a sandbox must show: Python and our packages.

Commands inside the sandbox start this interpreter (the terminal's launcher, workflow
scripts, MCP servers named by `sys.executable`), so it has to be there, wherever the server
is installed: a checkout under `/tmp` (the sandbox's `/tmp` is a fresh one), `/var/tmp`, a
home folder, a `uv tool` install, a wheel venv. `runtime_paths()` names the folders: the
interpreter's (and every link on the way to it), the venv, the Python installation and its
standard library, the site-packages, the folders of the `openhands` packages and, for an
editable install, the checkout they come from (so it reads as it would anywhere else). The sandbox
binds them read-only where its view would otherwise miss them or let the agent write them
(`sandbox_mounts`), and `OH_SANDBOX_WRITABLE` may not contain them (`sandbox_safety`).
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SYSTEM_FOLDERS", "Runtime", "runtime", "runtime_paths", "within"]

SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")
"""Folders the sandbox has its own of (or shows read-only): never bound from the host."""


@dataclass(frozen=True)
class Runtime:
    """The folders this process runs from (real paths, deduplicated)."""

    owned: tuple[str, ...]
    """Folders that are wholly the server's: its venv, the standard library, site-packages,
    the `openhands` packages. Nothing inside them may be writable."""
    shared: tuple[str, ...]
    """Folders it needs but shares with others: the interpreter's folders (`/usr/bin`), the
    Python installation's root and library folder (`/usr`, `/usr/lib`)."""

    @property
    def paths(self) -> tuple[str, ...]:
        """Every folder, owned first."""
        return (*self.owned, *(path for path in self.shared if path not in self.owned))


@functools.cache
def runtime() -> Runtime:
    """The folders this process runs from (found once; they do not move)."""
    import sysconfig

    owned: list[str | None] = []
    if sys.prefix != sys.base_prefix:  # a venv
        owned += [sys.prefix, sys.exec_prefix]
    owned += [sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")]
    owned.append(os.path.dirname(os.__file__))  # the base's stdlib (a venv names its own)
    packages = _package_folders()
    owned += packages
    shared: list[str | None] = [*_interpreter_folders(sys.executable)]
    shared += [sys.base_prefix, sys.base_exec_prefix, sysconfig.get_config_var("LIBDIR")]
    shared.append(_checkout(packages, sysconfig.get_path("purelib")))
    return Runtime(owned=_clean(owned), shared=_clean(shared))


def runtime_paths() -> tuple[str, ...]:
    """Every folder this process runs from (see `Runtime`)."""
    return runtime().paths


def within(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or inside it (both real and absolute)."""
    return folder == "/" or path == folder or path.startswith(folder.rstrip("/") + "/")


def _package_folders() -> list[str]:
    """The folders of the `openhands` namespace package: one per installed member (this
    module's own, then the others the namespace found)."""
    own = str(Path(__file__).resolve().parents[2])  # openhands/sdk/workspace/ -> openhands/
    namespace = sys.modules.get(__name__.partition(".")[0])
    return [own, *(getattr(namespace, "__path__", None) or [])]


def _checkout(packages: list[str], purelib: str | None) -> str | None:
    """The source checkout the packages are installed from (editable, as `uv sync` in this
    repository does): the folder holding every member, with a `pyproject.toml`. None for an
    installed wheel (the packages are in site-packages)."""
    site = os.path.realpath(purelib) if purelib else None
    sources = [
        os.path.dirname(os.path.realpath(folder))
        for folder in packages
        if site is None or not within(os.path.realpath(folder), site)
    ]
    if not sources:
        return None
    root = os.path.commonpath(sources)  # the workspace root; a member's own with one member
    return root if os.path.isfile(os.path.join(root, "pyproject.toml")) else None


def _interpreter_folders(executable: str) -> list[str]:
    """The folder of `executable` and of every link on the way to the real program."""
    folders: list[str] = []
    path = os.path.abspath(executable) if executable else ""
    for _ in range(40):  # the kernel's own limit on links followed
        if not path:
            break
        folders.append(os.path.dirname(path))
        if not os.path.islink(path):
            break
        path = os.path.join(os.path.dirname(path), os.readlink(path))
    if executable:
        folders.append(os.path.dirname(os.path.realpath(executable)))
    return folders


def _clean(paths: list[str | None]) -> tuple[str, ...]:
    found: list[str] = []
    for path in paths:
        if not path:
            continue
        real = os.path.realpath(path)
        if real != "/" and os.path.isdir(real) and real not in found:
            found.append(real)
    return tuple(found)
