"""Not a module of the suite: tests/test_suite_marks.py runs it with its twin under `-n 2
--dist loadgroup` to see that two modules using one session fixture of their area run on one
worker, as tests/conftest.py's groups promise."""

from __future__ import annotations

import os

import pytest


@pytest.mark.parametrize("n", range(4))
def test_records_its_worker(area_server: str, n: int) -> None:
    with open(os.environ["OH_SAMPLE_WORKERS"], "a") as out:
        module = os.environ["PYTEST_CURRENT_TEST"].split("::")[0].rpartition("/")[2]
        out.write(f"{module} {os.environ.get('PYTEST_XDIST_WORKER', 'no-worker')}\n")
