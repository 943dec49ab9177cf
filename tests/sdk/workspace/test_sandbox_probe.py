"""What the sandbox probe says when the network cannot be had: what is missing, and in a
container, the `docker run` options that give it (the image's docs list the same)."""

from __future__ import annotations

from pathlib import Path

import pytest
from openhands.sdk.workspace import sandbox_probe
from openhands.sdk.workspace.sandbox_probe import CONTAINER_OPTIONS
from sandbox_support import needs_bwrap

pytestmark = needs_bwrap


@pytest.fixture
def no_tun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A machine without /dev/net/tun (a container started without `--device`)."""
    monkeypatch.setattr(sandbox_probe, "TUN_DEVICE", tmp_path / "dev" / "net" / "tun")
    monkeypatch.setattr(sandbox_probe, "_CONTAINER_MARKERS", (str(tmp_path / ".dockerenv"),))
    return tmp_path


def test_without_a_tun_device_the_sandbox_runs_without_network_and_says_why(
    no_tun: Path,
) -> None:
    found = sandbox_probe._run_probe(network=True)

    assert (found.bwrap is not None, found.network) == (True, "none")
    assert found.problem is not None and str(sandbox_probe.TUN_DEVICE) in found.problem
    assert "docker run" not in found.problem and CONTAINER_OPTIONS not in found.problem


def test_in_a_container_the_problem_names_the_docker_run_options(no_tun: Path) -> None:
    (no_tun / ".dockerenv").touch()

    found = sandbox_probe._run_probe(network=True)

    assert found.problem is not None and CONTAINER_OPTIONS in found.problem
    assert "docs/agent-server.md#docker" in found.problem
