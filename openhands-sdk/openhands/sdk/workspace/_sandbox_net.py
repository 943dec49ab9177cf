"""The sandbox's network starter: bubblewrap in a new network namespace, slirp4netns outside.

Run as `python -I -S _sandbox_net.py SLIRP4NETNS BWRAP [bwrap options...] -- COMMAND...` by
`openhands.sdk.workspace.sandbox` when the sandbox has network. It starts bwrap with
`--info-fd` (bwrap writes the sandbox's pid there) and the command behind a small `sh`
gate: once bwrap has set the sandbox up (its loopback included) the gate says so on a pipe
and waits. Only then is `slirp4netns --configure --disable-host-loopback` attached to the
sandbox (a user-mode network stack: outbound TCP/UDP and DNS through 10.0.2.3; 10.0.2.2, the
way to the host's loopback, is refused), because bwrap and slirp4netns configuring the same
namespace at once makes bwrap fail now and then. When the network is up the gate runs the
command, and this program exits with the command's exit status. slirp4netns ends when this
process ends (`--exit-fd`); bwrap dies with it (`--die-with-parent`).

Only `os` and `sys` (no package, not even `json`): it must start fast whatever the parent's
`sys.path` is. If slirp4netns fails, the command still runs, without network, after one line
on stderr.
"""

from __future__ import annotations

import os
import sys

_SIGKILL = 9  # Linux's number; `import signal` would cost more than the whole program

_GATE = 'echo >&{up}; read _ <&{go} || :; exec {up}>&- {go}<&-; exec "$@"'
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


def _read_child_pid(fd: int) -> int | None:
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


def _status(wait_status: int) -> int:
    if os.WIFSIGNALED(wait_status):
        return 128 + os.WTERMSIG(wait_status)
    return os.WEXITSTATUS(wait_status)


def main() -> int:
    """Start the sandbox with its network; return the command's exit status."""
    slirp, bwrap, arguments = sys.argv[1], sys.argv[2], sys.argv[3:]
    split = arguments.index("--")
    options, command = arguments[:split], arguments[split + 1 :]
    info_r, info_w = os.pipe()
    up_r, up_w = os.pipe()
    go_r, go_w = os.pipe()
    gate = _GATE.format(up=up_w, go=go_r)
    child = _spawn(
        [bwrap, "--info-fd", str(info_w), *options, "--", "/bin/sh", "-c", gate, "sh", *command],
        (info_w, up_w, go_r),
        quiet=False,
    )
    for fd in (info_w, up_w, go_r):
        os.close(fd)
    sandbox_pid = _read_child_pid(info_r)
    os.close(info_r)
    set_up = os.read(up_r, 1) == b"\n"  # empty: bwrap failed (it said why on stderr)
    os.close(up_r)
    exit_r, exit_w = os.pipe()
    ready_r, ready_w = os.pipe()
    network = None
    if set_up and sandbox_pid is not None:
        network = _spawn(
            [
                slirp,
                "--configure",
                "--mtu=65520",
                "--disable-host-loopback",
                "--ready-fd",
                str(ready_w),
                "--exit-fd",
                str(exit_r),
                str(sandbox_pid),
                "tap0",
            ],
            (ready_w, exit_r),
            quiet=True,
        )
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
