"""The sandbox's network starter run by a user other than root (as the Docker image's server).

bwrap run by a non-root user owns the sandbox's namespaces by a user namespace of its own and
runs the command in a nested one; slirp4netns must join the owner to configure the network
(before, it joined the nested one and failed: `setns(CLONE_NEWNET): Operation not
permitted`). Run for real: the starter (`_sandbox_net.py`, copied where that user can read it)
under `setpriv` as `nobody`, with Debian's bwrap and slirp4netns.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.workspace.sandbox_probe import BASE_OPTIONS, NET_STARTER
from sandbox_support import needs_bwrap

pytestmark = [pytest.mark.slow, needs_bwrap]

NOBODY = 65534
SYSTEM_PYTHON = Path("/usr/bin/python3")
"""An interpreter any user can run (a venv's may live in root's home)."""

SANDBOX = [*BASE_OPTIONS, "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev"]
SANDBOX += ["--proc", "/proc", "--tmpfs", "/tmp", "--unshare-net"]


@pytest.fixture
def starter() -> Iterator[Path]:
    """The starter program in a folder `nobody` can read."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run the starter as another user")
    if shutil.which("slirp4netns") is None or not SYSTEM_PYTHON.exists():
        pytest.skip("needs slirp4netns and /usr/bin/python3")
    folder = Path(tempfile.mkdtemp(prefix="oh-starter-"))
    try:
        folder.chmod(0o755)
        copy = folder / NET_STARTER.name
        shutil.copy(NET_STARTER, copy)
        copy.chmod(0o644)
        yield copy
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _as_nobody(starter: Path, command: str) -> subprocess.CompletedProcess[str]:
    slirp, bwrap = shutil.which("slirp4netns"), shutil.which("bwrap")
    assert slirp is not None and bwrap is not None
    argv = [str(SYSTEM_PYTHON), "-I", "-S", str(starter), slirp, bwrap, *SANDBOX]
    setpriv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return subprocess.run(
        [*setpriv, *argv, "--", "sh", "-c", command],
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_non_root_sandbox_gets_its_network(starter: Path) -> None:
    done = _as_nobody(starter, "id -u; grep -c tap0 /proc/net/route; cat /proc/self/uid_map")

    assert done.returncode == 0, done.stderr
    uid, routes, *_ = done.stdout.split()
    assert uid == str(NOBODY)  # the command runs as that user, not as root in its namespace
    assert routes == "2"  # tap0 is up and carries the default route
    assert "could not be set up" not in done.stderr


def test_a_non_root_sandbox_still_cannot_reach_this_machine_s_loopback(starter: Path) -> None:
    # 10.0.2.2 is slirp4netns's way to the host's loopback: switched off.
    reach = "exec 3<>/dev/tcp/10.0.2.2/22 && echo reached || echo refused"

    done = _as_nobody(starter, f"bash -c '{reach}' 2>/dev/null; grep -c tap0 /proc/net/route")

    assert done.stdout.split() == ["refused", "2"], done.stderr
