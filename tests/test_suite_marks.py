"""The suite's own marks (tests/conftest.py): which tests are `slow`, which share a worker."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from agent_server.harness import ServerProcess

MODULE = "tests/test_suite_marks.py"
SAMPLES = Path(__file__).parent / "suite_samples"
SAMPLE = SAMPLES / "grouped_sample.py"
SESSION_SAMPLES = (SAMPLES / "session_sample_a.py", SAMPLES / "session_sample_b.py")


@pytest.fixture(scope="module")
def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A module-scoped fixture: its tests run on one worker under `--dist loadgroup`."""
    return tmp_path_factory.mktemp("shared")


@pytest.fixture(scope="module", params=["first", "second"])
def flavour(request: pytest.FixtureRequest) -> str:
    """A parametrized module-scoped fixture: each parameter is a group of its own."""
    return request.param


@pytest.fixture
def server_factory() -> Callable[[Path], ServerProcess]:
    """Makes (never starts here) a server process: its tests count as starting one."""
    return lambda root: ServerProcess(root / "conversations")


def _group(request: pytest.FixtureRequest) -> str | None:
    mark = request.node.get_closest_marker("xdist_group")
    return None if mark is None else mark.args[0]


def test_a_test_of_a_module_fixture_is_grouped_by_its_module(
    request: pytest.FixtureRequest, shared_folder: Path
) -> None:
    assert _group(request) == MODULE
    assert request.node.get_closest_marker("slow") is None


def test_each_parameter_of_a_module_fixture_is_its_own_group(
    request: pytest.FixtureRequest, flavour: str
) -> None:
    assert _group(request) == f"{MODULE}[flavour={flavour}]"


def test_a_test_of_function_fixtures_only_is_neither_grouped_nor_slow(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    assert _group(request) is None
    assert request.node.get_closest_marker("slow") is None


def test_a_test_whose_fixture_makes_a_server_process_is_slow(
    request: pytest.FixtureRequest, server_factory: Callable[[Path], ServerProcess]
) -> None:
    assert request.node.get_closest_marker("slow") is not None
    assert _group(request) is None


@pytest.fixture(scope="module")
def loadgroup_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """The worker each test of the sample modules ran on, by module, in one real
    `-n 2 --dist loadgroup` run of them all."""
    out = tmp_path_factory.mktemp("loadgroup") / "workers"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "OH_"))}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2"]
    done = subprocess.run(
        [*command, "--dist", "loadgroup", str(SAMPLE), *map(str, SESSION_SAMPLES)],
        env={**env, "OH_SAMPLE_WORKERS": str(out)},
        cwd=Path(__file__).parent.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    workers: dict[str, list[str]] = {}
    for line in out.read_text().splitlines():
        module, worker = line.split()
        workers.setdefault(module, []).append(worker)
    return workers


def test_a_module_fixtures_tests_share_one_worker_under_loadgroup(
    loadgroup_run: dict[str, list[str]],
) -> None:
    """The marks above only help if pytest-xdist honours them: a real `-n 2 --dist loadgroup`
    run of a sample module (pytest 9.2 with xdist 3.8 silently dropped every group)."""
    workers = loadgroup_run[SAMPLE.name]
    assert len(workers) == 6 and len(set(workers)) == 1, workers


def test_modules_sharing_an_areas_session_fixture_share_one_worker(
    loadgroup_run: dict[str, list[str]],
) -> None:
    """Two modules that use one session fixture of their folder's conftest (as the interop
    modules use the reference's servers) run on one worker, so the fixture starts once."""
    workers = [w for sample in SESSION_SAMPLES for w in loadgroup_run[sample.name]]
    assert len(workers) == 8 and len(set(workers)) == 1, workers
    assert all(len(loadgroup_run[sample.name]) == 4 for sample in SESSION_SAMPLES)
