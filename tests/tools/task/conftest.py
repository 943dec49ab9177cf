"""Fixtures for task tests: the parent conversation's folder and scripted LLM replies."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from openhands.sdk import Message


@pytest.fixture
def parent_dir(tmp_path: Path) -> Path:
    """Stands in for a persisted parent conversation's folder (`<persistence_dir>/<id>`)."""
    folder = tmp_path / "parent-conversation"
    folder.mkdir()
    return folder


@pytest.fixture
def finish(tool_call: Callable[..., Message]) -> Callable[[str], Message]:
    """An assistant message calling `finish` with the given message."""

    def make(message: str) -> Message:
        return tool_call("finish", message=message)

    return make
