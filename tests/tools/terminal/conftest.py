"""Fixtures for terminal tests: an executor on a real bash in a temporary workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.tools.terminal import TerminalExecutor


@pytest.fixture
def terminal(workspace: Path) -> Iterator[TerminalExecutor]:
    """A terminal executor whose shell is killed after the test."""
    executor = TerminalExecutor(str(workspace), default_timeout=30)
    yield executor
    executor.close()
