"""The network the browser shares with the conversation's shell.

A sandboxed shell has a network namespace of its own: the server the agent starts there
(`python -m http.server &`) listens on *that* namespace's `localhost`. For the agent to open
it in the browser, Chromium joins the same namespace. The shell is found through the
conversation's tools: a tool whose executor offers `shell_pid()` (the terminal's does),
which starts the shell if needed and names its process; the namespace is that of the first
process under it that is not in ours. Held open by a descriptor, so a shell that dies
meanwhile cannot hand the browser some other namespace.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["NetworkNamespace", "ShellHost", "find_shell", "network_of"]

_NS_GET_USERNS = 0xB701
"""ioctl on a namespace descriptor: a descriptor of the user namespace that owns it."""


@runtime_checkable
class ShellHost(Protocol):
    """A tool executor that runs the conversation's shell (the terminal's)."""

    def shell_pid(self) -> int | None:
        """The pid of the shell's process (starting the shell if needed); None if closed."""
        ...


@dataclass
class NetworkNamespace:
    """A network namespace to run the browser in, held open by `fd` until `close()`."""

    name: str
    """`net:[inode]`, as /proc shows it."""
    fd: int | None
    user_fd: int | None = None
    """The namespace's user namespace, when it is not ours (bubblewrap without root)."""

    def nsenter_argv(self) -> list[str]:
        """The `nsenter` prefix that runs a command in this namespace (descriptors passed)."""
        nsenter = shutil.which("nsenter") or "nsenter"
        argv = [nsenter, f"--net=/proc/self/fd/{self.fd}"]
        if self.user_fd is not None:
            argv[1:1] = [f"--user=/proc/self/fd/{self.user_fd}", "--preserve-credentials"]
        return argv

    def close(self) -> None:
        """Let the namespace go (the browser holds it while it runs)."""
        for fd in (self.fd, self.user_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.fd = self.user_fd = None


def find_shell(conversation: Any) -> ShellHost | None:
    """The executor of the conversation's shell, if it has one (a terminal tool)."""
    tools = getattr(conversation, "tools", None)
    if not isinstance(tools, dict):
        return None
    for tool in tools.values():
        executor = getattr(tool, "executor", None)
        if isinstance(executor, ShellHost):
            return executor
    return None


def network_of(pid: int) -> NetworkNamespace | None:
    """The network namespace of the sandbox under process `pid`, opened; None when its
    processes share this process's network (no sandbox) or are gone."""
    import psutil

    own = _namespace("self", "net")
    try:
        processes = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return None
    for process in processes:
        name = _namespace(str(process.pid), "net")
        if name is None or name == own:
            continue
        fd = _open(process.pid, "net", name)
        if fd is None:
            continue
        return NetworkNamespace(name=name, fd=fd, user_fd=_owner(fd))
    return None


def namespace_name(pid: int | str) -> str | None:
    """`net:[inode]` of process `pid` (or "self"), or None when it is gone."""
    return _namespace(str(pid), "net")


def _owner(net_fd: int) -> int | None:
    """The user namespace owning the network namespace `net_fd`, opened, when it is not ours
    (bubblewrap run without root makes one): joining the network needs joining it first."""
    try:
        user_fd = fcntl.ioctl(net_fd, _NS_GET_USERNS)
    except OSError:
        return None
    if os.readlink(f"/proc/self/fd/{user_fd}") == _namespace("self", "user"):
        os.close(user_fd)
        return None
    os.set_inheritable(user_fd, False)
    return user_fd


def _namespace(pid: str, kind: str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/{kind}")
    except OSError:
        return None


def _open(pid: int, kind: str, expected: str | None) -> int | None:
    try:
        fd = os.open(f"/proc/{pid}/ns/{kind}", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    # The pid may have been reused between reading the link and opening it.
    if expected is not None and os.readlink(f"/proc/self/fd/{fd}") != expected:
        os.close(fd)
        return None
    return fd
