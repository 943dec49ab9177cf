"""Fixtures for the sub-agent tests: every test starts from, and leaves, the same registry."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.subagent import registry


@pytest.fixture(autouse=True)
def isolated_agents() -> Iterator[None]:
    """The process-wide agent registry, emptied for the test and restored afterwards."""
    saved = dict(registry._agents)
    registry._agents.clear()
    try:
        yield
    finally:
        registry._agents.clear()
        registry._agents.update(saved)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home folder (user-level agents are read from it)."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder
