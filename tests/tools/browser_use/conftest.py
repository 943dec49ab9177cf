"""Fixtures for the browser tests: the page in a workspace, a free port."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from browser_support import PAGE, SECOND


@pytest.fixture
def site(workspace: Path) -> Path:
    """The page (index.html, second.html) in a folder of the workspace."""
    folder = workspace / "site"
    folder.mkdir()
    (folder / "index.html").write_text(PAGE)
    (folder / "second.html").write_text(SECOND)
    return folder


@pytest.fixture
def free_port() -> int:
    """A TCP port free on this machine's loopback now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
