"""What a sandboxed command sees: bubblewrap's mount options for one command.

The system read-only, a minimal /dev, its own /proc, a private /tmp; then every path by depth
(a parent before what is inside it): other workspaces emptied, the workspace (and the extra
writable folders) bound writable, readable paths bound read-only, the folders this process
runs from (`sandbox_runtime`) bound read-only where they would be missing (never inside a
secret) or writable, and at the same depth the secrets last; so a workspace inside a hidden
folder is bound back, and a secret inside the workspace stays hidden. Nothing is bound over
`/` or into /proc, /sys or /dev, so no path can uncover the host's. Emptied folders become
read-only only at the end, once the mount points for what is bound inside them exist.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from openhands.sdk.workspace.sandbox_runtime import SYSTEM_FOLDERS, within

__all__ = ["mount_options", "planned_mounts", "resolv_conf"]

SLIRP_DNS = "10.0.2.3"
"""The DNS forwarder slirp4netns offers inside the sandbox."""

_lock = threading.Lock()
_resolv: str | None = None


def mount_options(
    own: str,
    *,
    others: list[str],
    writable: list[str],
    readable: list[str],
    secret: list[str],
    resolv: str | None,
    runtime: tuple[str, ...] = (),
) -> list[str]:
    """bwrap's mount options: the system read-only, then each path by depth (a parent before
    what is inside it); at the same depth hiding comes first and secrets last.

    So a workspace inside a hidden folder (another workspace, the default workspaces'
    parent, even a secret folder) is bound back, and a secret inside the workspace stays
    hidden. `runtime` folders (this process's Python and packages) are bound read-only where
    the sandbox would not show them, or would let them be written.
    """
    options = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    emptied: list[str] = []
    for path, kind in _mounts(
        own, others=others, writable=writable, readable=readable, secret=secret, runtime=runtime
    ):
        if kind == "hidden":
            if os.path.isdir(path):
                options += ["--tmpfs", path]
                emptied.append(path)
            else:
                options += ["--ro-bind", os.devnull, path]
        else:
            options += ["--bind" if kind == "rw" else "--ro-bind", path, path]
    if resolv is not None:
        options += ["--ro-bind", resolv, "/etc/resolv.conf"]
    # Read-only only now: mount points for the folders bound inside were made meanwhile.
    for path in emptied:
        options += ["--remount-ro", path]
    return options


def planned_mounts(
    own: str,
    *,
    others: list[str],
    writable: list[str],
    secret: list[str],
    private_tmp: bool,
    readable: list[str] | None = None,
    runtime: tuple[str, ...] = (),
) -> list[tuple[str, str]]:
    """The folders and files the sandbox mounts over the read-only system, in mount order:
    (real path, "hidden" | "ro" | "rw"); with `private_tmp`, `/tmp` first as "hidden" (the
    sandbox's own /tmp shows nothing of this process's). `runtime` as for `mount_options`.
    For code that must see what a sandboxed process sees (`agent_files`)."""
    mounts = _mounts(
        own,
        others=others,
        writable=writable,
        readable=readable or [],
        secret=secret,
        runtime=runtime,
        tmp=private_tmp,
    )
    return [("/tmp", "hidden"), *mounts] if private_tmp else mounts


def _mounts(
    own: str,
    *,
    others: list[str],
    writable: list[str],
    readable: list[str],
    secret: list[str],
    runtime: tuple[str, ...] = (),
    tmp: bool = True,
) -> list[tuple[str, str]]:
    """The mounts after the system's (and the private /tmp's, with `tmp`), in order:
    (path, "hidden" | "ro" | "rw")."""
    plan: dict[str, str] = {"/": "ro", "/tmp": "hidden"} if tmp else {"/": "ro"}
    entries: dict[str, str] = {path: "other" for path in others if os.path.isdir(path)}
    entries.update({path: "ro" for path in readable if os.path.exists(path)})
    entries.update({path: "rw" for path in writable if os.path.isdir(path)})
    entries[own] = "rw"
    # Never in place of the workspace (a checkout the agent works in stays writable, its venv
    # inside it does not) or of another workspace (it stays hidden).
    entries.update(
        {path: "runtime" for path in runtime if path not in entries and os.path.isdir(path)}
    )
    entries.update({path: "secret" for path in secret if os.path.lexists(path)})
    order = {"other": 0, "ro": 1, "rw": 2, "runtime": 3, "secret": 4}
    mounts: list[tuple[str, str]] = []
    for path in sorted(entries, key=lambda item: (_depth(item), order[entries[item]])):
        kind = entries[path]
        if kind != "secret" and _system(path):
            continue  # the sandbox's own /proc and /dev stay; the host's are never uncovered
        if kind in ("other", "secret"):
            visible = _visible(path, plan)
            # Planned even when already invisible (e.g. under the private /tmp): what is
            # bound later must know a secret is there.
            plan[path] = "secret" if kind == "secret" else "hidden"
            if visible:
                mounts.append((path, "hidden"))
            continue
        if kind == "runtime":
            # Shown where it would be missing (a private /tmp, another workspace) or
            # writable (the workspace); never inside a secret: that stays hidden whole.
            if _nearest(path, plan) in ("ro", "secret"):
                continue
            kind = "ro"
        plan[path] = kind
        mounts.append((path, kind))
    return mounts


def _visible(path: str, plan: dict[str, str]) -> bool:
    """Whether `path` can be seen with the mounts planned so far (its nearest mount)."""
    return _nearest(path, plan) not in ("hidden", "secret")


def _nearest(path: str, plan: dict[str, str]) -> str:
    """How `path` is seen with the mounts planned so far: its nearest mount's kind."""
    return plan[max((mount for mount in plan if within(path, mount)), key=_depth)]


def _system(path: str) -> bool:
    """`/` itself, or /proc, /sys, /dev or inside them: never bound from the host."""
    return path == "/" or any(within(path, folder) for folder in SYSTEM_FOLDERS)


def _depth(path: str) -> int:
    return 0 if path == "/" else path.count("/")


def _real(path: str) -> str:
    return os.path.realpath(path)


def resolv_conf() -> str | None:
    """A resolv.conf naming slirp4netns's DNS, when the host's only names loopback servers.

    Inside the network namespace a resolver on the host's loopback (systemd-resolved's
    127.0.0.53, Docker's 127.0.0.11) cannot be reached; slirp4netns forwards 10.0.2.3 to the
    host's resolver. None when the host's resolv.conf works as it is.
    """
    global _resolv
    with _lock:
        if _resolv is not None:
            return _resolv or None
    try:
        text = Path("/etc/resolv.conf").read_text()
    except OSError:
        text = ""
    servers = [
        line.split()[1]
        for line in text.splitlines()
        if line.startswith("nameserver") and len(line.split()) > 1
    ]
    if servers and not all(s.startswith(("127.", "::1")) for s in servers):
        path = ""
    else:
        import tempfile

        folder = tempfile.mkdtemp(prefix="oh-sandbox-")
        path = os.path.join(folder, "resolv.conf")
        kept = [line for line in text.splitlines() if not line.startswith("nameserver")]
        Path(path).write_text("\n".join([*kept, f"nameserver {SLIRP_DNS}", ""]))
    with _lock:
        _resolv = path
    return path or None
