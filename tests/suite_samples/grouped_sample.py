"""Not a module of the suite (its name does not start with `test_`): tests/test_suite_marks.py
runs it under `-n 2 --dist loadgroup` to see that the tests of a module-scoped fixture run on
one worker, as tests/conftest.py's groups promise."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="module")
def shared() -> str:
    """A module-scoped fixture: every test below is in its module's group."""
    return "shared"


@pytest.mark.parametrize("n", range(6))
def test_records_its_worker(shared: str, n: int) -> None:
    with open(os.environ["OH_SAMPLE_WORKERS"], "a") as out:
        module = os.environ["PYTEST_CURRENT_TEST"].split("::")[0].rpartition("/")[2]
        out.write(f"{module} {os.environ.get('PYTEST_XDIST_WORKER', 'no-worker')}\n")
