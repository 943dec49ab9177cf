"""Which folders a sandbox may be given to write: the rules for workspaces and writable folders.

A sandbox binds its workspace (and `OH_SANDBOX_WRITABLE`) writable over a read-only system.
Some folders would undo the sandbox that way: `/` (bound over the sandbox's own /proc, /dev
and /tmp, it shows the host's processes and makes everything writable), /proc, /sys and /dev,
a folder holding the server's data (conversations, key file, settings: next to them the agent
could plant what the server reads), the server's own Python and packages (a `.pth` file there
runs unsandboxed at the next start). Each function says why a folder is refused, or None.
"""

from __future__ import annotations

import os
from pathlib import Path

from openhands.sdk.errors import InvalidArgumentError
from openhands.sdk.workspace.sandbox_runtime import SYSTEM_FOLDERS, runtime, within

__all__ = [
    "UnsafeWorkspaceError",
    "refuse_unsafe_workspace",
    "workspace_problem",
    "writable_problem",
]


class UnsafeWorkspaceError(InvalidArgumentError):
    """A sandboxed process was given a workspace that would undo its sandbox (`/`, /proc,
    /dev, a folder holding the server's data); the message names it and says why."""


def refuse_unsafe_workspace(workspace: str | Path, *, hidden: tuple[str, ...] = ()) -> None:
    """Raise `UnsafeWorkspaceError` when `workspace_problem` finds a reason."""
    problem = workspace_problem(os.path.abspath(os.fspath(workspace)), hidden=hidden)
    if problem is not None:
        raise UnsafeWorkspaceError(
            f"the workspace {problem}: a sandbox bound there would undo itself. Give the "
            "agent a folder of its own (a project folder), not a system or server folder."
        )


def workspace_problem(path: str, *, hidden: tuple[str, ...] = ()) -> str | None:
    """Why the sandbox cannot take `path` as a workspace, or None when it can.

    Refused: `/` (or a link to it), /proc, /sys, /dev and what is inside them, a folder holding
    one of `hidden` (the server's own data) or inside one, a folder inside the server's own
    installation (its venv, the standard library, the `openhands` packages). A workspace
    holding the installation (a checkout with its `.venv`) is allowed: the installation stays
    read-only in the sandbox.
    """
    real = os.path.realpath(path)
    shown = path if real == path else f"{path} (= {real})"
    problem = _system_problem(real, shown)
    if problem is not None:
        return problem
    for folder in runtime().owned:
        if within(real, folder):
            return f"{shown} is inside {folder}, a folder the server runs from"
    return _data_problem(real, shown, hidden)


def writable_problem(path: str, *, hidden: tuple[str, ...] = ()) -> str | None:
    """Why `path` cannot be a folder sandboxed processes may write besides their workspace
    (`OH_SANDBOX_WRITABLE`), or None when it can.

    Refused: a relative path, one holding `:` (a PATH-like list), a missing folder, `/` (or a
    link to it), /proc, /sys, /dev and what is inside them, a folder the server runs from (or
    one holding it, or inside its venv, standard library or packages), and a folder holding
    one of `hidden` (the server's data) or inside one.
    """
    if ":" in path:
        return f"{path!r} holds ':'; separate folders with commas"
    if not os.path.isabs(path):
        return f"{path!r} is not an absolute path; give the full path of a folder"
    real = os.path.realpath(path)
    shown = path if real == path else f"{path} (= {real})"
    if not os.path.isdir(real):
        return f"{shown} is not an existing folder; create it first"
    problem = _system_problem(real, shown)
    if problem is not None:
        return problem
    found = runtime()
    for folder in found.paths:
        if within(folder, real):
            return _overlap(shown, folder, real, "a folder the server runs from")
    for folder in found.owned:
        if within(real, folder):
            return f"{shown} is inside {folder}, a folder the server runs from"
    return _data_problem(real, shown, hidden)


def _system_problem(real: str, shown: str) -> str | None:
    if real == "/":
        return f"{shown} is the whole file system"
    for system in SYSTEM_FOLDERS:
        if within(real, system):
            return f"{shown} is inside {system}, of which the sandbox has its own"
    return None


def _data_problem(real: str, shown: str, hidden: tuple[str, ...]) -> str | None:
    for item in hidden:
        secret = os.path.realpath(item)
        if within(secret, real):
            return _overlap(shown, secret, real, "the server's own data")
        if within(real, secret):
            return f"{shown} is inside {secret}, the server's own data"
    return None


def _overlap(shown: str, inner: str, folder: str, noun: str) -> str:
    """`folder` (`shown`) is `inner`, or holds it; `noun` says what `inner` is."""
    return f"{shown} is {noun}" if inner == folder else f"{shown} holds {inner}, {noun}"
