"""Fixtures for file editor tests: an executor on a temporary workspace."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openhands.tools.file_editor import (
    FileEditorAction,
    FileEditorExecutor,
    FileEditorObservation,
)

Edit = Callable[..., FileEditorObservation]


@pytest.fixture
def edit(workspace: Path) -> Edit:
    """Run one file_editor command: `edit("view", "a.txt", view_range=[1, 2])`."""
    executor = FileEditorExecutor(str(workspace))

    def run(command: str, path: str, **fields: Any) -> FileEditorObservation:
        return executor(FileEditorAction(command=command, path=path, **fields))  # type: ignore[arg-type]

    return run
