"""Fixtures for the delegation tests: a console that records what a visualizer prints."""

from __future__ import annotations

import io

import pytest
from rich.console import Console


@pytest.fixture
def console() -> Console:
    """A wide, colourless console writing to memory (`console.file.getvalue()`)."""
    return Console(file=io.StringIO(), width=200, color_system=None, force_terminal=False)
