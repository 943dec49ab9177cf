"""A session-scoped fixture of an area, for the sample modules `session_sample_*.py`."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def area_server() -> str:
    """Stands for an area's expensive session fixture (the reference's server, Temporal)."""
    return "area"
