"""The sandbox's self-check runs real commands through the sandbox and says what failed.

Real bubblewrap (skipped where it cannot run). A broken sandbox is made for real: a policy
that hides the folder this process's Python lives in, so the Python the launchers start is
missing inside, as it was for a venv under /tmp.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from openhands.sdk.workspace import SandboxPolicy, configure_sandbox
from openhands.sdk.workspace.sandbox_check import check_python, check_run_to_end, self_check
from sandbox_support import needs_bwrap

pytestmark = needs_bwrap

INTERPRETER_FOLDER = os.path.dirname(os.path.abspath(sys.executable))


@pytest.fixture
def python_hidden() -> Iterator[None]:
    """A process-wide policy under which this process's Python is missing in the sandbox."""
    configure_sandbox(SandboxPolicy(mode="bwrap", hidden=(INTERPRETER_FOLDER,)))
    yield
    configure_sandbox(None)


def test_every_check_passes_in_a_working_sandbox() -> None:
    assert self_check(mode="bwrap") is None


def test_a_missing_python_is_reported_with_what_is_missing(python_hidden: None) -> None:
    problem = self_check()

    assert problem is not None
    assert problem.startswith(f"this server's Python ({sys.executable}) did not run")
    assert "No such file or directory" in problem


def test_the_other_checks_still_run_and_pass(python_hidden: None, tmp_path: Path) -> None:
    assert check_run_to_end(tmp_path) is None
    assert check_python(tmp_path) is not None


def test_further_checks_are_run_and_their_failures_joined() -> None:
    problem = self_check(
        [lambda folder: None, lambda folder: f"broken in {folder.name}"], mode="bwrap"
    )

    assert problem is not None and problem.startswith("broken in oh-sandbox-check-")
