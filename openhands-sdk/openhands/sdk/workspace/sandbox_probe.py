"""What this machine offers the sandbox: a bubblewrap that runs, and slirp4netns for network.

Found out once per process (and per network choice) by running bwrap (and the network
starter) on `true`; the answer says why not when it cannot.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["BASE_OPTIONS", "CONTAINER_OPTIONS", "NET_STARTER", "Probe", "probe", "reset_probes"]

NET_STARTER = Path(__file__).with_name("_sandbox_net.py")
"""The network starter program (see `_sandbox_net.py`)."""

BASE_OPTIONS = (
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
)
"""Namespaces and process options every sandbox gets (mounts and capabilities are added)."""

CONTAINER_OPTIONS = (
    "--security-opt seccomp=unconfined --security-opt apparmor=unconfined "
    "--security-opt systempaths=unconfined --device /dev/net/tun"
)
"""What `docker run` needs for the sandbox inside a container: namespaces (refused by Docker's
default seccomp profile and by AppArmor's), a fresh /proc (refused while parts of the
container's /proc are masked) and, for its network, the TUN device slirp4netns opens (not in a
container's /dev). docs/agent-server.md#docker explains each."""

TUN_DEVICE = Path("/dev/net/tun")

_CONTAINER_MARKERS = ("/.dockerenv", "/run/.containerenv")
"""Files Docker and Podman put into every container."""

_lock = threading.Lock()
_probes: dict[bool, Probe] = {}


@dataclass(frozen=True)
class Probe:
    """What this machine offers: a bwrap that runs (else why not), and the network kind."""

    bwrap: str | None
    slirp: str | None
    network: Literal["isolated", "host", "none"]
    problem: str | None = None


def probe(network: bool) -> Probe:
    """Find out once per process (and network choice) what the sandbox can be here."""
    with _lock:
        found = _probes.get(network)
    if found is not None:
        return found
    found = _run_probe(network)
    with _lock:
        _probes[network] = found
    return found


def _run_probe(network: bool) -> Probe:
    import shutil  # only here: the probe runs once per process

    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Probe(None, None, "host", "bubblewrap (bwrap) is not installed")
    base = [*BASE_OPTIONS, "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev"]
    base += ["--proc", "/proc", "--tmpfs", "/tmp"]
    problem = _try([bwrap, *base, "--unshare-net", "--", "true"])
    if problem is not None:
        return Probe(None, None, "host", f"bwrap failed: {problem}{_in_container()}")
    if not network:
        return Probe(bwrap, None, "none")
    # Without a user-mode stack the sandbox gets no network at all (never the host's, which
    # would open the server's port and every loopback service to the agent).
    slirp = shutil.which("slirp4netns")
    if slirp is None:
        return Probe(
            bwrap, None, "none", "slirp4netns is not installed (apt-get install slirp4netns)"
        )
    if not TUN_DEVICE.exists():
        return Probe(
            bwrap, None, "none", f"there is no {TUN_DEVICE} for slirp4netns{_in_container()}"
        )
    check = "grep -q tap0 /proc/net/dev"
    starter = [sys.executable, "-I", "-S", str(NET_STARTER), slirp, bwrap]
    problem = _try([*starter, *base, "--unshare-net", "--", "sh", "-c", check])
    if problem is not None:
        return Probe(bwrap, None, "none", f"slirp4netns failed: {problem}{_in_container()}")
    return Probe(bwrap, slirp, "isolated")


def _in_container() -> str:
    """What to do about a failure in a container (empty outside one)."""
    if not any(Path(marker).exists() for marker in _CONTAINER_MARKERS):
        return ""
    return f" (in a container, run it with {CONTAINER_OPTIONS}: see docs/agent-server.md#docker)"


def _try(argv: list[str]) -> str | None:
    """None if `argv` runs and exits 0, else the reason (its last error line)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return lines[-1] if lines else f"exit code {done.returncode}"


def reset_probes() -> None:
    """Forget what was found (tests that change what is installed)."""
    with _lock:
        _probes.clear()
