"""The sandbox's starter: bubblewrap in a new network namespace, slirp4netns outside.

Run as `python -I -S _sandbox_net.py SLIRP4NETNS BWRAP [bwrap options...] -- COMMAND...` by
`openhands.sdk.workspace.sandbox` for long-lived sandboxes (the terminal, MCP servers): it is
their steady parent (bwrap dies with its parent, and the thread that started it may end
first), and with `-` as SLIRP4NETNS that is all it does. With network, it starts bwrap with
`--info-fd` (bwrap writes the sandbox's pid there) and the command behind a small `bash`
gate: once bwrap has set the sandbox up (its loopback included) the gate says so on a pipe
and waits. Only then is `slirp4netns --configure --disable-host-loopback` attached to the
sandbox (a user-mode network stack: outbound TCP/UDP and DNS through 10.0.2.3; 10.0.2.2, the
way to the host's loopback, is refused), because bwrap and slirp4netns configuring the same
namespace at once makes bwrap fail now and then. When the network is up the gate runs the
command, and this program exits with the command's exit status. slirp4netns ends when this
process ends (`--exit-fd`); bwrap dies with it (`--die-with-parent`).

Run by a user other than root (the Docker image's `openhands`, any non-root server), bwrap
owns the sandbox's namespaces by a user namespace of its own and runs the command in a nested
one. slirp4netns joins the command's user namespace by default, where it has no right over the
network namespace (`setns(CLONE_NEWNET): Operation not permitted`); so it is told to join the
namespace's owner instead (`netns_owner`).

Only `os` and `sys` (no package, not even `json`): it must start fast whatever the parent's
`sys.path` is. `sandbox_popen.py` imports its pieces (the gate, slirp4netns's command line) to
do the same from within the server, for commands run to their end. If slirp4netns fails, the command still runs, without network, after one line
on stderr.
"""

from __future__ import annotations

import os
import sys

NO_NETWORK = "-"
"""In place of slirp4netns's path: a sandbox without network (this program is only its parent)."""

_SIGKILL = 9  # Linux's number; `import signal` would cost more than the whole program
_NS_GET_USERNS = 0xB701  # _IO(0xb7, 0x1) in linux/nsfs.h: a namespace's owning user namespace

GATE = 'echo >&{up}; read _ <&{go} || :; exec {up}>&- {go}<&-; exec "$@"'
"""Runs first in the sandbox: say it is set up, wait for the network, then become the command."""


def _spawn(argv: list[str], keep: tuple[int, ...], quiet: bool) -> int:
    """Start `argv` with the descriptors in `keep` inherited (and only those besides 0-2)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child execs at once
        try:
            for fd in keep:
                os.set_inheritable(fd, True)
            if quiet:
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)
                os.dup2(null, 2)
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    return pid


def read_child_pid(fd: int) -> int | None:
    """The sandbox's pid from bwrap's info JSON (`{"child-pid": N, ...}`), or None.

    Read to the end (bwrap closes it once written): bwrap writes the JSON in several pieces,
    and a pipe closed early would make its next write fail and bwrap give up.
    """
    data = b""
    while chunk := os.read(fd, 4096):
        data += chunk
    # Parsed by hand: importing `json` would double this program's start-up time.
    _, found, rest = data.partition(b'"child-pid":')
    digits = rest.lstrip().split(b",")[0].split(b"}")[0].strip()
    return int(digits) if found and digits.isdigit() else None


def netns_owner(sandbox_pid: int) -> int | None:
    """A descriptor of the user namespace owning the sandbox's network namespace when that is
    not this process's own (bwrap run by a user other than root), else None. The caller
    passes it to slirp4netns (`slirp_argv`) and closes it once slirp4netns has started."""
    import fcntl  # only here: root's sandboxes (the common case in tests) never need it

    try:
        net = os.open(f"/proc/{sandbox_pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None  # the sandbox is gone: slirp4netns will say so
    try:
        owner = fcntl.ioctl(net, _NS_GET_USERNS)
    except OSError:
        return None  # a kernel without it (< 4.9): slirp4netns's own choice
    finally:
        os.close(net)
    found, own = os.fstat(owner), os.stat("/proc/self/ns/user")
    if (found.st_dev, found.st_ino) == (own.st_dev, own.st_ino):
        os.close(owner)
        return None
    return owner


def slirp_argv(
    slirp: str, sandbox_pid: int, ready_fd: int, exit_fd: int, userns_fd: int | None = None
) -> list[str]:
    """slirp4netns for the sandbox `sandbox_pid`: outbound only, the host's loopback refused;
    it writes to `ready_fd` once the network is up and ends when `exit_fd` closes. With
    `userns_fd` (from `netns_owner`, inherited by slirp4netns) it joins that user namespace."""
    userns = [] if userns_fd is None else [f"--userns-path=/proc/self/fd/{userns_fd}"]
    return [
        slirp,
        "--configure",
        "--mtu=65520",
        "--disable-host-loopback",
        *userns,
        "--ready-fd",
        str(ready_fd),
        "--exit-fd",
        str(exit_fd),
        str(sandbox_pid),
        "tap0",
    ]


def gated(bwrap: str, info_fd: int, up_fd: int, go_fd: int, options: list[str]) -> list[str]:
    """bwrap's command line with the gate before the command (`options` end with `--` and
    the command)."""
    split = options.index("--")
    gate = GATE.format(up=up_fd, go=go_fd)
    return [
        bwrap,
        "--info-fd",
        str(info_fd),
        *options[:split],
        "--",
        "bash",  # not sh: dash cannot redirect descriptors above 9
        "--norc",
        "--noprofile",
        "-c",
        gate,
        "bash",
        *options[split + 1 :],
    ]


def _status(wait_status: int) -> int:
    if os.WIFSIGNALED(wait_status):
        return 128 + os.WTERMSIG(wait_status)
    return os.WEXITSTATUS(wait_status)


def main() -> int:
    """Start the sandbox (with its network unless SLIRP4NETNS is `-`); return the command's
    exit status."""
    slirp, bwrap, arguments = sys.argv[1], sys.argv[2], sys.argv[3:]
    if slirp == NO_NETWORK:
        # Only a steady parent: bwrap dies with its parent (--die-with-parent), and a
        # thread that started it directly may end long before the sandbox should.
        _, status = os.waitpid(_spawn([bwrap, *arguments], (), quiet=False), 0)
        return _status(status)
    info_r, info_w = os.pipe()
    up_r, up_w = os.pipe()
    go_r, go_w = os.pipe()
    child = _spawn(gated(bwrap, info_w, up_w, go_r, arguments), (info_w, up_w, go_r), quiet=False)
    for fd in (info_w, up_w, go_r):
        os.close(fd)
    sandbox_pid = read_child_pid(info_r)
    os.close(info_r)
    set_up = os.read(up_r, 1) == b"\n"  # empty: bwrap failed (it said why on stderr)
    os.close(up_r)
    exit_r, exit_w = os.pipe()
    ready_r, ready_w = os.pipe()
    network = None
    if set_up and sandbox_pid is not None:
        owner = netns_owner(sandbox_pid)
        keep = (ready_w, exit_r) if owner is None else (ready_w, exit_r, owner)
        network = _spawn(slirp_argv(slirp, sandbox_pid, ready_w, exit_r, owner), keep, quiet=True)
        if owner is not None:
            os.close(owner)
    os.close(ready_w)
    os.close(exit_r)
    if network is not None and not os.read(ready_r, 1):
        os.write(2, b"openhands sandbox: the network could not be set up; running without it\n")
    os.close(ready_r)
    try:  # noqa: SIM105  (contextlib would be one more import to start)
        os.write(go_w, b"\n")  # the command may start now
    except OSError:
        pass  # the sandbox is gone already: its status says why
    os.close(go_w)
    _, status = os.waitpid(child, 0)
    if network is not None:
        # The sandbox is gone, so is what slirp4netns served: no need for its slow goodbye.
        os.kill(network, _SIGKILL)
        os.waitpid(network, 0)
    os.close(exit_w)
    return _status(status)


if __name__ == "__main__":
    sys.exit(main())
