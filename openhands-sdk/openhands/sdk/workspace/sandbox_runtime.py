"""What of this process's own installation a sandbox must show: Python and our packages.

Commands inside the sandbox start this interpreter (the terminal's launcher, workflow
scripts, MCP servers named by `sys.executable`), so it has to be there, wherever the server
is installed: a checkout under `/tmp` (the sandbox's `/tmp` is a fresh one), `/var/tmp`, a
home folder, a `uv tool` install, a wheel venv. `runtime_paths()` names the folders: the
interpreter's (and every link on the way to it), the venv, the Python installation and its
standard library, the site-packages and the folders of the `openhands` packages. The sandbox
binds them read-only where its view would otherwise miss them or let the agent write them
(`sandbox_mounts`), and `OH_SANDBOX_WRITABLE` may not contain them (`sandbox_safety`).
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass

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
    try:
        import openhands

        owned += list(openhands.__path__)
    except ImportError:  # pragma: no cover - this module is part of it
        pass
    shared: list[str | None] = [*_interpreter_folders(sys.executable)]
    shared += [sys.base_prefix, sys.base_exec_prefix, sysconfig.get_config_var("LIBDIR")]
    return Runtime(owned=_clean(owned), shared=_clean(shared))


def runtime_paths() -> tuple[str, ...]:
    """Every folder this process runs from (see `Runtime`)."""
    return runtime().paths


def within(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or inside it (both real and absolute)."""
    return folder == "/" or path == folder or path.startswith(folder.rstrip("/") + "/")


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
