"""`sandbox_popen`: start a command that runs to its end in its sandbox, from this process.

`sandbox_command` puts a small starter program in front of the sandbox (a steady parent for
a long-lived process, which also sets up its network). A command run to its end (`verify`, a
hook, /api/bash) does not need one: the thread that starts it waits for it. So this process
does the starter's work itself, which saves starting a Python interpreter per command, and
stops slirp4netns without waiting for the kernel to tear its network namespace down (a
background thread reaps it).
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openhands.sdk.workspace._sandbox_net import gated, netns_owner, read_child_pid, slirp_argv
from openhands.sdk.workspace.sandbox import SandboxMode, sandbox_plan

logger = logging.getLogger(__name__)

__all__ = ["SandboxedProcess", "sandbox_popen"]


@dataclass
class SandboxedProcess:
    """A started command (`process`) and the network helper serving its sandbox, if any.

    Call `release()` once the command has ended (or been killed).
    """

    process: subprocess.Popen[Any]
    network: subprocess.Popen[Any] | None = None
    exit_fd: int | None = None

    def release(self) -> None:
        """Stop the sandbox's network helper; never waits for it."""
        network, self.network = self.network, None
        if network is not None:
            with contextlib.suppress(OSError):
                network.kill()
            # Its exit waits for the kernel to tear the network namespace down (~10-20 ms):
            # reaped in the background, not by the caller.
            threading.Thread(target=network.wait, name="sandbox-net-reaper", daemon=True).start()
        exit_fd, self.exit_fd = self.exit_fd, None
        if exit_fd is not None:
            os.close(exit_fd)


def sandbox_popen(
    argv: Sequence[str],
    *,
    workspace: str | Path,
    cwd: str | Path | None = None,
    mode: SandboxMode | None = None,
    **popen: Any,
) -> SandboxedProcess:
    """`subprocess.Popen(argv, cwd=cwd, **popen)` in the sandbox of `workspace`.

    `mode` is the caller's sandbox choice (see `sandbox_plan`). The caller's thread must
    outlive the command (bubblewrap dies with the thread that started it), as it does when it
    waits for the command. Raises what Popen raises, and `SandboxUnavailableError`.
    """
    plan = sandbox_plan(workspace, cwd=cwd, mode=mode)
    if plan is None:
        return SandboxedProcess(subprocess.Popen(list(argv), cwd=cwd, **popen))
    options = [*plan.options, "--", *argv]
    if plan.slirp is None:
        return SandboxedProcess(subprocess.Popen([plan.bwrap, *options], cwd=cwd, **popen))
    info_r, info_w = os.pipe()
    up_r, up_w = os.pipe()
    go_r, go_w = os.pipe()
    try:
        process = subprocess.Popen(
            gated(plan.bwrap, info_w, up_w, go_r, options),
            cwd=cwd,
            pass_fds=(info_w, up_w, go_r),
            **popen,
        )
    except BaseException:
        for fd in (info_r, up_r, go_w):
            os.close(fd)
        raise
    finally:
        for fd in (info_w, up_w, go_r):
            os.close(fd)
    started = SandboxedProcess(process)
    try:
        sandbox_pid = read_child_pid(info_r)
        set_up = os.read(up_r, 1) == b"\n"  # empty: bwrap failed (it said why on stderr)
        if set_up and sandbox_pid is not None:
            _start_network(started, plan.slirp, sandbox_pid)
        with contextlib.suppress(OSError):  # the sandbox may be gone already
            os.write(go_w, b"\n")  # the command may start now
    finally:
        for fd in (info_r, up_r, go_w):
            os.close(fd)
    return started


def _start_network(started: SandboxedProcess, slirp: str, sandbox_pid: int) -> None:
    """slirp4netns for the sandbox; returns once its network is up (or it failed)."""
    ready_r, ready_w = os.pipe()
    exit_r, exit_w = os.pipe()
    owner = netns_owner(sandbox_pid)
    inherited = (ready_w, exit_r) if owner is None else (ready_w, exit_r, owner)
    try:
        started.network = subprocess.Popen(
            slirp_argv(slirp, sandbox_pid, ready_w, exit_r, owner),
            pass_fds=inherited,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        started.exit_fd = exit_w
    except OSError as exc:
        os.close(exit_w)
        logger.warning("the sandbox's network could not be started: %s", exc)
    finally:
        for fd in inherited:
            os.close(fd)
    try:
        if started.network is not None and not os.read(ready_r, 1):
            logger.warning("the sandbox's network could not be set up; the command runs without")
    finally:
        os.close(ready_r)
