"""The sandbox every process the agent controls starts in: bubblewrap, no Docker needed.

One seam: `sandbox_command(argv, workspace=...)` returns the command line that runs `argv`
in the sandbox (or `argv` itself when the sandbox is off). Every spawner goes through it:
`run_shell` (verify, hooks, workspace commands, the server's /api/bash), the terminal's
shell, MCP stdio servers and workflow scripts. Inside:

- the whole file system read-only (`--ro-bind / /`), the workspace writable (with what its
  claim grants: a git worktree's repository records), a private
  `/tmp`, a minimal `/dev`, its own `/proc` (a new PID namespace: the server's processes and
  their environments are not visible);
- the folders this process runs from (its Python, venv and packages: `sandbox_runtime.py`),
  read-only, wherever they are (also under `/tmp`, or inside the workspace);
- invisible: every path the policy hides (the server's conversations folder and key file),
  the folders of conversations persisted by this process, and every other workspace this
  process knows (`claim_workspace`); a file is replaced by an empty one, a folder by an empty
  read-only one;
- no capabilities (`--cap-drop ALL`, so no mount can be undone, also as root), a new session;
- network: always its own network namespace. With `network` on, reached through slirp4netns
  with the host's loopback disabled (`_sandbox_net.py`), so even with network the agent
  cannot connect to the server's port or any other loopback service; without a working
  slirp4netns there is no network (and `sandbox_status()` warns); off: only a loopback of
  its own.

A workspace the sandbox cannot take safely (`/`, /proc, /dev, a folder holding the server's
data: `sandbox_safety.py`) is refused with `UnsafeWorkspaceError`, and so is a writable folder
of that kind in the policy (`OH_SANDBOX_WRITABLE`).

Modes (`OH_SANDBOX`, or `LocalWorkspace(sandbox=...)`): `bwrap` (required: a spawn fails
with `SandboxUnavailableError` when bubblewrap cannot run), `auto` (bubblewrap when it works,
else unsandboxed with a warning) and `off`. A process-wide policy set with
`configure_sandbox` (the agent server does) wins over a workspace's own choice; without one,
`OH_SANDBOX` (default `off`), `OH_SANDBOX_NETWORK` (default on) and `OH_SANDBOX_WRITABLE`
(extra writable folders) are read from the environment.
"""

from __future__ import annotations

import logging
import os
import stat
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from openhands.sdk.errors import InvalidSettingError, OpenHandsError
from openhands.sdk.workspace._sandbox_net import NO_NETWORK
from openhands.sdk.workspace.file_errors import HiddenPathError
from openhands.sdk.workspace.sandbox_mounts import (
    mount_options,
    planned_mounts,
    resolv_conf,
)
from openhands.sdk.workspace.sandbox_probe import BASE_OPTIONS, NET_STARTER, probe, reset_probes
from openhands.sdk.workspace.sandbox_runtime import runtime_paths
from openhands.sdk.workspace.sandbox_safety import (
    UnsafeWorkspaceError,
    refuse_unsafe_workspace,
    writable_problem,
)
from pydantic import BaseModel, ConfigDict, Field, model_validator

logger = logging.getLogger(__name__)

__all__ = [
    "SANDBOX_ENV",
    "SANDBOX_NETWORK_ENV",
    "SANDBOX_WRITABLE_ENV",
    "HiddenPathError",
    "SandboxMode",
    "SandboxPlan",
    "SandboxPolicy",
    "SandboxStatus",
    "SandboxUnavailableError",
    "UnsafeWorkspaceError",
    "ViewPlan",
    "check_workspace",
    "claim_workspace",
    "claim_workspaces",
    "configure_sandbox",
    "hide_path",
    "release_workspace",
    "sandbox_command",
    "sandbox_plan",
    "sandbox_policy",
    "sandbox_status",
    "unhide_path",
    "view_plan",
]

SandboxMode = Literal["auto", "bwrap", "off"]
"""`bwrap`: always (fail if it cannot run); `auto`: when it works; `off`: never."""

SANDBOX_ENV = "OH_SANDBOX"
"""The mode (auto, bwrap, off) when no policy was configured in the process."""
SANDBOX_NETWORK_ENV = "OH_SANDBOX_NETWORK"
"""`false` (or 0, no, off) takes the network away from sandboxed processes."""
SANDBOX_WRITABLE_ENV = "OH_SANDBOX_WRITABLE"
"""Comma-separated folders that stay writable in the sandbox besides the workspace (absolute,
existing, none of the server's own: `sandbox_safety.writable_problem`)."""
CONFINE_WRITES_ENV = "OH_CONFINE_WRITES"
"""`false` lets the agent's in-process file tools write anywhere when the sandbox is off."""

_FALSE = frozenset({"0", "false", "no", "off"})


class SandboxUnavailableError(OpenHandsError, RuntimeError):
    """The sandbox is required (`bwrap`) but bubblewrap cannot run here; the message says
    why and what to do."""


class SandboxPolicy(BaseModel):
    """How the agent's processes are sandboxed (one per process, or per workspace)."""

    model_config = ConfigDict(defer_build=True, frozen=True, extra="forbid")

    mode: SandboxMode = Field(default="off", description="bwrap, auto or off.")
    network: bool = Field(
        default=True,
        description="Outbound network through a user-mode stack (no access to the host's "
        "loopback); False: none at all.",
    )
    hidden: tuple[str, ...] = Field(
        default=(), description="Files and folders no sandboxed process may see (absolute)."
    )
    writable: tuple[str, ...] = Field(
        default=(),
        description="Folders writable in the sandbox besides the workspace: absolute, "
        "existing, not `/`, /proc, /sys or /dev, none the process runs from and none holding "
        "(or inside) a hidden path.",
    )
    confine_writes: bool = Field(
        default=True,
        description="With the sandbox off, the file operations made for the agent in this "
        "process (file editor, rewind, file routes) still write only in the workspace and "
        "the writable folders; False lets them write wherever this process can.",
    )

    @model_validator(mode="after")
    def _safe_writable(self) -> SandboxPolicy:
        for path in self.writable:
            problem = writable_problem(path, hidden=self.hidden)
            if problem is not None:
                raise ValueError(problem)
        return self

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> SandboxPolicy:
        """The policy `OH_SANDBOX`, `OH_SANDBOX_NETWORK` and `OH_SANDBOX_WRITABLE` describe.

        Raises ValueError naming the variable for a value that is not understood.
        """
        env = os.environ if environ is None else environ
        mode = (env.get(SANDBOX_ENV) or "off").strip().lower()
        if mode not in get_args(SandboxMode):
            raise InvalidSettingError(f"{SANDBOX_ENV}={mode!r}: give auto, bwrap or off")
        network = (env.get(SANDBOX_NETWORK_ENV) or "true").strip().lower() not in _FALSE
        writable = tuple(
            part.strip() for part in env.get(SANDBOX_WRITABLE_ENV, "").split(",") if part.strip()
        )
        for path in writable:
            problem = writable_problem(path)
            if problem is not None:
                raise InvalidSettingError(f"{SANDBOX_WRITABLE_ENV}: {problem}")
        confine = (env.get(CONFINE_WRITES_ENV) or "true").strip().lower() not in _FALSE
        return cls(
            mode=mode,  # type: ignore[arg-type]
            network=network,
            writable=writable,
            confine_writes=confine,
        )


@dataclass(frozen=True)
class SandboxStatus:
    """Whether the sandbox is in force for a mode, and with which network (for reports)."""

    mode: SandboxMode
    active: bool
    network: Literal["isolated", "host", "none"]
    """`isolated`: own namespace through slirp4netns; `none`: none at all (switched off, or
    no user-mode stack works here); `host`: the server's (no sandbox)."""
    warning: str | None = None
    """What the operator should know (no sandbox under `auto`, a shared network), or None."""
    self_check: Literal["passed", "failed", "skipped"] = "skipped"
    """How the self-check at start went (`sandbox_check.self_check`); `skipped` when none ran
    (no sandbox, or a caller that does not check)."""


# -- process-wide state ------------------------------------------------------------------------

_lock = threading.Lock()
_configured: SandboxPolicy | None = None
_workspaces: Counter[str] = Counter()
_workspace_modes: dict[str, SandboxMode] = {}
_hidden: Counter[str] = Counter()
_grants: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}  # workspace -> (ro, rw)
_warned: set[str] = set()


def configure_sandbox(policy: SandboxPolicy | None) -> None:
    """Set the process-wide policy (the agent server's); None goes back to the environment.

    A configured policy wins over any workspace's own `sandbox` choice.
    """
    global _configured
    with _lock:
        _configured = policy


def sandbox_policy() -> SandboxPolicy:
    """The configured policy, else the one the environment describes."""
    with _lock:
        configured = _configured
    return configured if configured is not None else SandboxPolicy.from_env()


def claim_workspace(
    path: str | Path,
    mode: SandboxMode | None = None,
    *,
    readable: Iterable[str | Path] = (),
    writable: Iterable[str | Path] = (),
) -> None:
    """Say that a conversation works in `path`: every other sandboxed process stops seeing it.

    `mode` is the workspace's own choice (used unless a process-wide policy is configured).
    `readable` and `writable` are paths outside `path` that its own processes see read-only
    or may write (a git worktree's repository folder), even where they would be hidden; they
    hold until the last claim is released. A writable path `OH_SANDBOX_WRITABLE` could not
    name (the server's own files, `/`...) is left out, with a warning. Claims are counted: call `release_workspace` once
    per claim.
    """
    key = _real(path)
    granted_rw: list[str] = []
    for item in writable:
        problem = writable_problem(os.fspath(item), hidden=sandbox_policy().hidden)
        if problem is None:
            granted_rw.append(_real(item))
        else:  # never the server's own files, whoever asks
            logger.warning("Not writable in the sandbox of %s: %s", key, problem)
    grant = (tuple(_real(item) for item in readable), tuple(granted_rw))
    with _lock:
        _workspaces[key] += 1
        if mode is not None:
            _workspace_modes[key] = mode
        if grant != ((), ()):
            _grants[key] = grant


def claim_workspaces(paths: Iterable[str | Path]) -> None:
    """`claim_workspace` for many paths at once (a server's stored conversations at start-up).

    Each is resolved as `os.path.realpath` would, at a fraction of its cost: the folder a path
    is in is resolved once for all its siblings, and the last component is checked with one
    `lstat` (a symlink there, or a path with `.` or `..` in it, is resolved in full).
    """
    folders: dict[str, str] = {}
    keys: list[str] = []
    for path in paths:
        text = os.fspath(path)
        parent, name = os.path.split(text)
        parts = text.split("/")
        if not os.path.isabs(text) or not name or "." in parts or ".." in parts:
            keys.append(_real(text))
            continue
        try:
            is_link = stat.S_ISLNK(os.lstat(text).st_mode)
        except OSError:
            is_link = False  # not there (yet): realpath keeps the name as it is
        if is_link:
            keys.append(_real(text))
            continue
        real_parent = folders.get(parent)
        if real_parent is None:
            real_parent = folders[parent] = _real(parent)
        keys.append(os.path.join(real_parent, name))
    with _lock:
        for key in keys:
            _workspaces[key] += 1


def release_workspace(path: str | Path) -> None:
    """Undo one `claim_workspace(path)`."""
    key = _real(path)
    with _lock:
        _workspaces[key] -= 1
        if _workspaces[key] <= 0:
            del _workspaces[key]
            _workspace_modes.pop(key, None)
            _grants.pop(key, None)


def hide_path(path: str | Path) -> None:
    """Hide `path` (a conversation's persistence folder) from every sandboxed process.

    Counted like `claim_workspace`; undo with `unhide_path`.
    """
    key = _real(path)
    with _lock:
        _hidden[key] += 1


def unhide_path(path: str | Path) -> None:
    """Undo one `hide_path(path)`."""
    key = _real(path)
    with _lock:
        _hidden[key] -= 1
        if _hidden[key] <= 0:
            del _hidden[key]


# -- the seam ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SandboxPlan:
    """How to start one command in its sandbox: bwrap's options (without the command), and
    slirp4netns when the sandbox gets network through it."""

    bwrap: str
    options: tuple[str, ...]
    slirp: str | None = None


def sandbox_plan(
    workspace: str | Path,
    *,
    cwd: str | Path | None = None,
    readable: Iterable[str | Path] = (),
    mode: SandboxMode | None = None,
    switches_user: bool = False,
) -> SandboxPlan | None:
    """The sandbox a command for `workspace` gets now, or None when it runs without one.

    `workspace` is the folder the command may write; `cwd` where it starts (default: the
    workspace); `readable` more paths it must see (read-only) even where they would be
    hidden, e.g. a private temp folder of the caller. `mode` is the caller's own choice
    (ignored when a process-wide policy is configured). `switches_user`: the command starts
    as root and switches to another user itself (the terminal's `username`), so it keeps the
    capabilities to do so until it has switched. Raises `SandboxUnavailableError` when the
    sandbox is required but cannot run, `UnsafeWorkspaceError` for a workspace it cannot take
    (`check_workspace`).
    """
    policy, chosen = _effective(workspace, mode)
    if chosen == "off":
        return None
    found = probe(policy.network)
    if found.bwrap is None:
        if chosen == "bwrap":
            raise SandboxUnavailableError(
                f"{SANDBOX_ENV}=bwrap, but bubblewrap cannot run here: {found.problem}. "
                "Install it (apt-get install bubblewrap), allow user namespaces, or set "
                f"{SANDBOX_ENV}=auto or off."
            )
        _warn_once(found.problem or "bubblewrap cannot run")
        return None
    refuse_unsafe_workspace(workspace, hidden=policy.hidden)
    own = _real(workspace)
    start = _real(cwd) if cwd is not None else own
    with _lock:
        others = [path for path in _workspaces if path != own]
        secret = [*policy.hidden, *_hidden]
        granted_ro, granted_rw = _grants.get(own, ((), ()))
    options = (
        *BASE_OPTIONS,
        *_capabilities(switches_user),
        "--unshare-net",
        *mount_options(
            own,
            others=others,
            writable=[*(_real(path) for path in policy.writable), *granted_rw],
            readable=[*(_real(path) for path in readable), *granted_ro],
            secret=[_real(path) for path in secret],
            resolv=resolv_conf() if found.network == "isolated" else None,
            runtime=runtime_paths(),
        ),
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--chdir",
        start,
    )
    return SandboxPlan(bwrap=found.bwrap, options=options, slirp=found.slirp)


def sandbox_command(
    argv: Sequence[str],
    *,
    workspace: str | Path,
    cwd: str | Path | None = None,
    readable: Iterable[str | Path] = (),
    mode: SandboxMode | None = None,
    switches_user: bool = False,
) -> list[str]:
    """The command line that runs `argv` in the sandbox of `workspace` (or `argv` unchanged).

    The arguments are `sandbox_plan`'s. The command line starts the sandbox's starter
    (`_sandbox_net.py`), which stays its parent until the command ends and sets up
    slirp4netns for its network: fit for long-lived processes (the terminal, MCP servers); a
    command run to its end is cheaper through `sandbox_popen`. Start the result in a new
    session, as every agent process is.
    """
    plan = sandbox_plan(
        workspace, cwd=cwd, readable=readable, mode=mode, switches_user=switches_user
    )
    if plan is None:
        return list(argv)
    network = plan.slirp or NO_NETWORK
    starter = [sys.executable, "-I", "-S", str(NET_STARTER), network, plan.bwrap]
    return [*starter, *plan.options, "--", *argv]


def check_workspace(workspace: str | Path, mode: SandboxMode | None = None) -> None:
    """Raise `UnsafeWorkspaceError` when the sandbox in force for `workspace` cannot take it:
    `/`, /proc, /sys, /dev, a folder holding (or inside) what the policy hides or inside the
    server's own installation (`sandbox_safety.workspace_problem`). Nothing is refused when
    no sandbox will run (off, or `auto` without bubblewrap). `mode` is the caller's choice (as
    in `sandbox_plan`)."""
    policy, chosen = _effective(workspace, mode)
    if chosen == "off" or (chosen == "auto" and probe(policy.network).bwrap is None):
        return
    refuse_unsafe_workspace(workspace, hidden=policy.hidden)


@dataclass(frozen=True)
class ViewPlan:
    """What the sandbox of one workspace shows, for file operations made in this process on
    the agent's behalf (`agent_files`): the mounts over the system, in order."""

    mounts: tuple[tuple[str, str], ...]
    """(real path, "hidden" | "ro" | "rw"), a parent before what is inside it."""
    system: Literal["ro", "rw"]
    """What the rest of the file system is: read-only, or writable (sandbox off and
    `confine_writes` off)."""
    active: bool
    """Whether the agent's processes really run in the sandbox (so /tmp is private)."""


def view_plan(workspace: str | Path, mode: SandboxMode | None = None) -> ViewPlan:
    """The file system as the agent's processes for `workspace` see it (see `ViewPlan`).

    With the sandbox on: the workspace and the writable folders writable, everything else
    read-only; the paths the policy hides, the folders of open conversations and every other
    claimed workspace hidden; `/tmp` hidden when the sandbox really runs (it is private
    there). With it off: nothing hidden, and writes still confined to the workspace and the
    writable folders unless the policy's `confine_writes` is off. `/proc` and `/dev` are
    always hidden: in this process they are the server's, never the agent's.
    """
    policy, chosen = _effective(workspace, mode)
    own = _real(workspace)
    writable = [_real(folder) for folder in policy.writable]
    always = [("/dev", "hidden"), ("/proc", "hidden")]
    if chosen == "off":
        rw = [(folder, "rw") for folder in sorted({*writable, own}) if os.path.isdir(folder)]
        system: Literal["ro", "rw"] = "ro" if policy.confine_writes else "rw"
        return ViewPlan(mounts=(*always, *rw), system=system, active=False)
    with _lock:
        others = [folder for folder in _workspaces if folder != own]
        secret = [*policy.hidden, *_hidden]
        granted_ro, granted_rw = _grants.get(own, ((), ()))
    active = probe(policy.network).bwrap is not None
    mounts = planned_mounts(
        own,
        others=others,
        writable=[*writable, *granted_rw],
        readable=list(granted_ro),
        secret=[_real(item) for item in secret],
        private_tmp=active,
        runtime=runtime_paths() if active else (),
    )
    return ViewPlan(mounts=(*always, *mounts), system="ro", active=active)


def sandbox_status(mode: SandboxMode | None = None) -> SandboxStatus:
    """Whether processes started now would be sandboxed, and how (probing bubblewrap once)."""
    policy = sandbox_policy()
    chosen = mode if mode is not None and _configured is None else policy.mode
    if chosen == "off":
        return SandboxStatus(mode=chosen, active=False, network="host")
    found = probe(policy.network)
    if found.bwrap is None:
        return SandboxStatus(
            mode=chosen,
            active=False,
            network="host",
            warning=f"the agent's processes run WITHOUT a sandbox: {found.problem}",
        )
    warning = None
    if policy.network and found.network == "none":
        warning = (
            f"sandboxed processes have NO network: {found.problem}; "
            f"or set {SANDBOX_NETWORK_ENV}=false to say that is intended"
        )
    return SandboxStatus(mode=chosen, active=True, network=found.network, warning=warning)


# -- internals ---------------------------------------------------------------------------------


def _capabilities(switches_user: bool) -> list[str]:
    # Root in the sandbox keeps every capability unless told otherwise, and could then
    # unmount what hides the server's files.
    options = ["--cap-drop", "ALL"]
    if switches_user and os.geteuid() == 0:
        options += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return options


def _effective(workspace: str | Path, mode: SandboxMode | None) -> tuple[SandboxPolicy, str]:
    policy = sandbox_policy()
    with _lock:
        if _configured is not None:
            return policy, policy.mode
        claimed = _workspace_modes.get(_real(workspace))
    return policy, mode or claimed or policy.mode


def _real(path: str | Path) -> str:
    return os.path.realpath(os.fspath(path))


def _warn_once(problem: str) -> None:
    with _lock:
        if problem in _warned:
            return
        _warned.add(problem)
    logger.warning(
        "%s=auto: the agent's processes run WITHOUT a sandbox (%s); they can read every "
        "file this process can. Install bubblewrap (apt-get install bubblewrap) or set %s=off "
        "to silence this.",
        SANDBOX_ENV,
        problem,
        SANDBOX_ENV,
    )


def _reset_for_tests() -> None:
    """Forget probes and warnings (tests that change what is installed)."""
    reset_probes()
    with _lock:
        _warned.clear()
