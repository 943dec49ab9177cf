"""Shared set-up for the goal command's tests."""

import pytest


@pytest.fixture(autouse=True)
def typed_in_a_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test runs as if `openhands-goal` was typed in a shell, not started by `uv run`.

    The command prints how to resume with `uv run` in front when `uv run` started it; CI runs
    the suite under `uv run`, so without this the printed commands would depend on the runner.
    """
    monkeypatch.delenv("UV_RUN_RECURSION_DEPTH", raising=False)
